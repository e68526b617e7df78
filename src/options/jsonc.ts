// The package's one JSONC reader. OpenCode 1.18.33 reads opencode.json(c) with jsonc-parser
// (comments and trailing commas allowed, any syntax error fatal). Reading it with the same library
// means doctor accepts exactly the files OpenCode accepts: an unclosed comment or a stray token is
// an error here too, not a guess. The proxy reads its config file with it as well, and refuses a
// key given twice in one object (uniqueKeys): JSON keeps only the last copy, so a deny list in the
// first would be dropped in silence. (Doctor names such a key in the plugin's entry by its own
// reading, src/cli/keys-twice.ts: it reads the file as written beside the substituted one.)
import { type Node, parse, parseTree, printParseErrorCode, type ParseError } from "jsonc-parser";
import { lineEndAt } from "../grammar/chars.ts";

export class JsoncError extends Error {
  constructor(
    message: string,
    /** 1-based, as editors count. */
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

interface JsoncReading {
  /** A key given twice in one object is an error (JsoncError naming it), not the last copy kept. */
  uniqueKeys?: boolean;
}

/** JSON with comments and trailing commas, as OpenCode reads opencode.json(c); throws JsoncError at the first syntax error. */
export function parseJsonc(text: string, reading: JsoncReading = {}): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const value = parse(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first !== undefined) {
    const { line, column } = lineAndColumn(source, first.offset);
    throw new JsoncError(`${describeError(first)} at line ${line}, column ${column}`, line, column);
  }
  if (reading.uniqueKeys) {
    const twice = keysGivenTwiceIn(source)[0];
    if (twice !== undefined) {
      const { line, column } = lineAndColumn(source, twice.offset);
      throw new JsoncError(`key ${JSON.stringify(twice.path)} is given twice (again at line ${line}, column ${column}); only one copy would be read, so give it once`, line, column);
    }
  }
  return value;
}

/**
 * Every key written twice in one object, by the offset of its later copy, from a text with no BOM. Paths are dotted ("options.responseFix"; a list item as "[0]"); keys
 * compare as read, escapes decoded, as JSON.parse and jsonc-parser compare them ("deny\u0054ools"
 * is "denyTools").
 */
function keysGivenTwiceIn(source: string): { path: string; offset: number }[] {
  const node = parseTree(source, [], { allowTrailingComma: true, disallowComments: false });
  const found: { path: string; offset: number }[] = [];
  const walk = (current: Node, path: string) => {
    const children = current.children ?? [];
    if (current.type === "array") children.forEach((item, index) => walk(item, `${path}[${index}]`));
    if (current.type !== "object") return;
    const keys = new Set<string>();
    for (const property of children) {
      const [name, value] = property.children ?? [];
      if (name === undefined || typeof name.value !== "string") continue;
      const key: string = name.value;
      const keyPath = path === "" ? key : `${path}.${key}`;
      if (keys.has(key)) found.push({ path: keyPath, offset: property.offset });
      keys.add(key);
      if (value !== undefined) walk(value, keyPath);
    }
  };
  if (node !== undefined) walk(node, "");
  return found.sort((a, b) => a.offset - b.offset);
}

function describeError(error: ParseError): string {
  const words: Record<string, string> = {
    InvalidSymbol: "invalid symbol",
    InvalidNumberFormat: "invalid number",
    PropertyNameExpected: "property name expected",
    ValueExpected: "value expected",
    ColonExpected: "colon expected",
    CommaExpected: "comma expected",
    CloseBraceExpected: "closing brace expected",
    CloseBracketExpected: "closing bracket expected",
    EndOfFileExpected: "end of file expected",
    InvalidCommentToken: "invalid comment",
    UnexpectedEndOfComment: "unclosed /* comment",
    UnexpectedEndOfString: "unclosed string",
    UnexpectedEndOfNumber: "unfinished number",
    InvalidUnicode: "invalid unicode escape",
    InvalidEscapeCharacter: "invalid escape character",
    InvalidCharacter: "invalid character",
  };
  const code = printParseErrorCode(error.error);
  return words[code] ?? code;
}

/** 1-based, as editors count. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  // LF, CR LF and a lone CR each end a line (grammar/chars.ts), as everywhere else in the package.
  for (let i = 0; i < offset && i < text.length; ) {
    const end = lineEndAt(text, i);
    if (end === 0) {
      i++;
      continue;
    }
    i += end;
    line++;
    lineStart = i;
  }
  return { line, column: offset - lineStart + 1 };
}

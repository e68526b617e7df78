// The package's one JSONC reader. OpenCode 1.18.33 reads opencode.json(c) with jsonc-parser
// (comments and trailing commas allowed, any syntax error fatal). Reading it with the same library
// means doctor accepts exactly the files OpenCode accepts: an unclosed comment or a stray token is
// an error here too, not a guess. The proxy reads its config file with it as well, and refuses a
// key given twice in one object (uniqueKeys): JSON keeps only the last copy, so a deny list in the
// first would be dropped in silence.
import { parse, printParseErrorCode, visit, type ParseError } from "jsonc-parser";
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
    const twice = keyGivenTwice(source);
    if (twice !== undefined) {
      const { line, column } = lineAndColumn(source, twice.offset);
      throw new JsoncError(`key ${JSON.stringify(twice.path)} is given twice (again at line ${line}, column ${column}); only one copy would be read, so give it once`, line, column);
    }
  }
  return value;
}

/**
 * The first key written twice in one object, by its dotted path ("options.responseFix"; a list
 * item as "[0]") and the offset of its second copy. Keys compare as read, escapes decoded, as
 * JSON.parse and jsonc-parser compare them ("deny\u0054ools" is "denyTools").
 */
function keyGivenTwice(source: string): { path: string; offset: number } | undefined {
  const open: Set<string>[] = [];
  let found: { path: string; offset: number } | undefined;
  visit(
    source,
    {
      onObjectBegin: () => void open.push(new Set()),
      onObjectEnd: () => void open.pop(),
      onObjectProperty: (property, offset, _length, _line, _column, pathSupplier) => {
        const keys = open[open.length - 1];
        if (found !== undefined || keys === undefined) return;
        if (!keys.has(property)) return void keys.add(property);
        const path = [...pathSupplier(), property].map((part, index) => (typeof part === "number" ? `[${part}]` : index === 0 ? part : `.${part}`)).join("");
        found = { path, offset };
      },
    },
    { allowTrailingComma: true, disallowComments: false },
  );
  return found;
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

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
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

// OpenCode 1.18.33 reads opencode.json(c) with jsonc-parser (comments and trailing commas allowed,
// any syntax error fatal). Reading it with the same library means doctor accepts exactly the files
// OpenCode accepts: an unclosed comment or a stray token is an error here too, not a guess.
import { parse, printParseErrorCode, type ParseError } from "jsonc-parser";

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

/** JSON with comments and trailing commas, as OpenCode reads opencode.json(c); throws JsoncError at the first syntax error. */
export function parseJsonc(text: string): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const errors: ParseError[] = [];
  const value = parse(source, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return value;
  const { line, column } = lineAndColumn(source, first.offset);
  throw new JsoncError(`${describeError(first)} at line ${line}, column ${column}`, line, column);
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
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

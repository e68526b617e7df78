import { PythonLiteralReader, settleLiteral } from "../python-literal.ts";
import type { JsonSchema } from "../types.ts";

/**
 * O08 LFM2 writes calls as a Python list: `[bash(command='ls'), read(filePath="/a", limit=5)]`.
 * A small reader for exactly that: names, keyword arguments, and Python literals (strings,
 * numbers, True/False/None, lists, dicts, tuples; `(x)` is x, as in Python), read by the literal
 * reader it builds on (python-literal.ts). Anything else is not a call list.
 *
 * It refuses what parseJson (src/parse/values.ts) refuses, as the literal reader does
 * (python-literal.ts), so a Python spelling is never a way around the JSON reader: here a keyword
 * argument named twice (Python rejects a repeated keyword; `bash(command='echo hi', command='rm
 * -rf ~')` must not run the second).
 */
interface PythonCall {
  name: string;
  args: Record<string, unknown>;
}

class Reader extends PythonLiteralReader {
  ident(): string {
    this.ws();
    const m = /^[A-Za-z_][\w.-]*/.exec(this.s.slice(this.pos, this.pos + 128));
    if (!m) this.fail();
    this.pos += m[0].length;
    return m[0];
  }

  calls(): PythonCall[] {
    const out: PythonCall[] = [];
    this.expect("[");
    // As in any Python list, a comma may follow the last call (`[bash(command='ls'),]`).
    while (!this.eat("]")) {
      out.push(this.call());
      if (!this.eat(",")) {
        this.expect("]");
        break;
      }
    }
    this.ws();
    if (this.pos !== this.s.length) this.fail();
    return out;
  }

  call(): PythonCall {
    const name = this.ident();
    this.expect("(");
    const args: Record<string, unknown> = {};
    // Names read so far.
    const seen = new Set<string>();
    // A comma may follow the last keyword argument, as in Python (`bash(command='ls',)`); never stand alone (`f(,)`).
    while (!this.eat(")")) {
      const key = this.ident();
      this.expect("=");
      if (seen.has(key)) this.fail();
      this.ownKey(key);
      seen.add(key);
      const value = this.value(0);
      args[key] = value;
      if (!this.eat(",")) {
        this.expect(")");
        break;
      }
    }
    return { name, args };
  }
}

/** The call list `text` holds, each call's arguments settled against `schemaOf(name)` (True stays "True" where only a string fits), or null. */
export function parsePythonCalls(text: string, schemaOf: (name: string) => JsonSchema | undefined = () => undefined): PythonCall[] | null {
  try {
    return new Reader(text.trim()).calls().map((c) => ({ name: c.name, args: settleLiteral(c.args, schemaOf(c.name)) as Record<string, unknown> }));
  } catch {
    return null;
  }
}

// The substitutions OpenCode 1.18.33 makes in a config file's text before parsing it (its
// ConfigVariable.substitute, read from the binary): `{env:NAME}` first, then `{file:PATH}` in what
// that left. doctor makes the same ones, so it judges the values OpenCode runs with.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import path from "node:path";

export class ConfigError extends Error {}

/** `{env:NAME}` becomes the variable's value (empty when unset), as OpenCode substitutes it before parsing. */
export function withEnv(text: string, env: NodeJS.ProcessEnv): string {
  // OpenCode's pattern is /\{env:([^}]+)\}/g: an empty `{env:}` is no match and stays as text,
  // and the substitution goes on past it.
  let out = "";
  let from = 0;
  for (let at = text.indexOf("{env:"); at >= 0; ) {
    const end = text.indexOf("}", at + 5);
    if (end < 0) break;
    if (end === at + 5) {
      at = text.indexOf("{env:", at + 1);
      continue;
    }
    out += text.slice(from, at) + (env[text.slice(at + 5, end)] ?? "");
    from = end + 1;
    at = text.indexOf("{env:", from);
  }
  return out + text.slice(from);
}

/** A `{file:}` reference names a config value (a model, a key, a prompt), not data: larger is refused. */
export const MAX_REFERENCED_BYTES = 1024 * 1024;

/**
 * `{file:PATH}` becomes the file's text, trimmed and escaped as a JSON string's inside, as OpenCode
 * substitutes it: PATH relative to the config file's directory (`base`), `~/` from home; a
 * reference on a line that starts with `//` stays as written. Safe to run on any config: only a
 * regular file is read (a FIFO or a device never blocks or floods doctor), at most
 * MAX_REFERENCED_BYTES of it, and no error message quotes what it holds (a `{file:}` often names
 * a key file). A file OpenCode cannot read makes it refuse the config: a ConfigError here too.
 * `asFile`: the text as the file writes it (before `{env:}`): an error names a reference as
 * written there, never one an `{env:}` made or completed (as-written.ts's rule, for a path).
 */
export function withFiles(text: string, source: string, base: string, home: string, asFile: string = text): string {
  const open = "{file:";
  let out = "";
  let from = 0;
  for (let at = text.indexOf(open); at >= 0; ) {
    const end = text.indexOf("}", at + open.length);
    if (end < 0) break;
    const lineStart = text.lastIndexOf("\n", at - 1) + 1;
    if (end === at + open.length || text.slice(lineStart, at).trimStart().startsWith("//")) {
      at = text.indexOf(open, end === at + open.length ? at + 1 : end + 1);
      continue;
    }
    const reference = text.slice(at, end + 1);
    const written = text.slice(at + open.length, end);
    const file = path.resolve(base, written.startsWith("~/") ? path.join(home, written.slice(2)) : written);
    const named = asFile.includes(reference) ? `${reference}: ${file}` : "that an {env:} substitution wrote: its file";
    out += text.slice(from, at) + JSON.stringify(readReferenced(file, named, source).trim()).slice(1, -1);
    from = end + 1;
    at = text.indexOf(open, from);
  }
  return out + text.slice(from);
}

/** `named`: the reference and its path as an error may name them. */
function readReferenced(file: string, named: string, source: string): string {
  const bad = (why: string) => new ConfigError(`${source}: bad file reference ${named} ${why}`);
  let fd: number;
  try {
    // Non-blocking, so opening a FIFO returns at once (and is then refused as no regular file).
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw bad((error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw bad("is not a regular file");
    if (stat.size > MAX_REFERENCED_BYTES) throw bad(`is larger than ${MAX_REFERENCED_BYTES / 1024 / 1024} MiB; doctor reads no config value that large`);
    const buffer = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

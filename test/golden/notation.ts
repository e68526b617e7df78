/**
 * The escaped notation used by fixtures and docs: `{BAR}` U+FF5C, `{DVL}` U+2016, `{SP}` U+2581,
 * `{D}` the canonical sentinel. Markup in this repository is only ever written this way.
 */
export const BAR = String.fromCodePoint(0xff5c);
export const DVL = String.fromCodePoint(0x2016);
export const SP = String.fromCodePoint(0x2581);
export const D = `${BAR}DSML${BAR}`;

export function live(notation: string): string {
  return notation.replaceAll("{D}", D).replaceAll("{BAR}", BAR).replaceAll("{DVL}", DVL).replaceAll("{SP}", SP);
}

/** The reverse of live(), for printing results without live marker bytes. */
export function escaped(text: string): string {
  return text.replaceAll(D, "{D}").replaceAll(BAR, "{BAR}").replaceAll(DVL, "{DVL}").replaceAll(SP, "{SP}");
}

/** JSON with every non-ASCII character escaped, so generated files never carry marker bytes. */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A canonical V4 block: invokes given as [tool, [[param, value, string-attr]]]. */
export function block(wrapper: string, invokes: [string, [string, string, string?][]][]): string {
  const body = invokes
    .map(([name, params]) => {
      const ps = params.map(([k, v, s = "true"]) => `<{D}parameter name="${k}" string="${s}">${v}</{D}parameter>`).join("\n");
      return `<{D}invoke name="${name}">\n${ps}\n</{D}invoke>`;
    })
    .join("\n");
  return `<{D}${wrapper}>\n${body}\n</{D}${wrapper}>`;
}

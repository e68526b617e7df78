// Fetches each case of the loopback server test/adapters/content-coding.test.ts starts and reports,
// per case, what bodyCoding predicts and the bytes this runtime's fetch handed back. Imported by
// the test under Bun, and bundled for Node and run there as `node probe.js <base URL> <count>`.
import { bodyCoding } from "../../src/adapters/content-coding.ts";

export interface Probed {
  predicted: string;
  /** The body as fetch gave it, base64; "error: ..." when the request failed. */
  received: string;
}

export async function probe(base: string, count: number): Promise<Probed[]> {
  const out: Probed[] = [];
  for (let i = 0; i < count; i++) {
    try {
      const res = await fetch(`${base}/${i}`, { headers: { "accept-encoding": "identity" }, redirect: "manual" });
      const predicted = bodyCoding(res);
      out.push({ predicted, received: Buffer.from(await res.arrayBuffer()).toString("base64") });
    } catch (error) {
      out.push({ predicted: "-", received: `error: ${(error as Error).message}` });
    }
  }
  return out;
}

const [base, count] = process.argv.slice(2);
if (base && count && process.env.CONTENT_CODING_PROBE === "1") process.stdout.write(JSON.stringify(await probe(base, Number(count))));

/**
 * The constructors every golden fixture file shares: a recovered call (`ok`), a nudge (`bad`), a
 * hard negative (`none`), and the calls they expect most often. Inputs are written in the escaped
 * notation and made live here (test/golden/notation.ts), so no file holds marker bytes.
 */
import type { Shape } from "../../src/grammar/shapes.ts";
import type { Fixture, FixtureCall } from "./build-fixtures.ts";
import { live } from "./notation.ts";

export const ok = (id: string, name: string, input: string, calls: FixtureCall[], text = ""): Fixture => ({
  id, name, input: live(input), expect: { calls, text: live(text), nudge: null, broken: [] },
});
export const bad = (id: string, name: string, input: string, nudge: string, broken: Shape[], text = input, calls: FixtureCall[] = []): Fixture => ({
  id, name, input: live(input), expect: { calls, text: live(text), nudge, broken },
});
export const none = (id: string, name: string, input: string): Fixture => ({
  id, name, input: live(input), expect: { calls: [], text: live(input), nudge: null, broken: [] },
});
export const ls = (shape: Shape, command = "ls -la"): FixtureCall => ({ tool: "bash", input: { command }, shape });
export const readA = (shape: Shape): FixtureCall => ({ tool: "read", input: { filePath: "/a" }, shape });

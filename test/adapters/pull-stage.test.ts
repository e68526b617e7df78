import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { type Stage, pullStage } from "../../src/sse/pull-stage.ts";

/** What the middleware shipped before: the same stage as a TransformStream. */
function transformStage<I, O>(source: ReadableStream<I>, make: (emit: (item: O) => void) => Stage<I>): ReadableStream<O> {
  let sink!: TransformStreamDefaultController<O>;
  const stage = make((item) => sink.enqueue(item));
  return source.pipeThrough(
    new TransformStream<I, O>({
      transform(item, controller) {
        sink = controller;
        stage.each(item);
      },
      flush(controller) {
        sink = controller;
        stage.end();
      },
    }),
  );
}

function source<T>(items: readonly T[]): ReadableStream<T> {
  let i = 0;
  return new ReadableStream<T>({
    pull(controller) {
      if (i < items.length) controller.enqueue(items[i++]!);
      else controller.close();
    },
  });
}

async function all<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream as unknown as AsyncIterable<T>) out.push(item);
  return out;
}

/** A stage that holds, releases and multiplies items the way the repair does with text: 0, 1 or several outputs per input. */
function holding(emit: (item: string) => void): Stage<number> {
  let held: number[] = [];
  return {
    each(n) {
      if (n % 3 === 0) held.push(n);
      else {
        for (const h of held) emit(`held ${h}`);
        held = [];
        for (let k = 0; k < n % 4; k++) emit(`${n}.${k}`);
      }
    },
    end() {
      for (const h of held) emit(`end ${h}`);
      emit("end");
    },
  };
}

describe("pullStage", () => {
  test("differential: the same output as the TransformStream it replaced, on random inputs", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(40), { maxLength: 60 }), async (items) => {
        const pulled = await all(pullStage(source(items), holding));
        const transformed = await all(transformStage(source(items), holding));
        expect(pulled).toEqual(transformed);
      }),
      { seed: 1414, numRuns: 300 },
    );
  });

  test("a stage that emits nothing for a long stretch still ends: the reader never waits on held items", async () => {
    const items = Array.from({ length: 1000 }, (_, i) => i * 3);
    const out = await all(pullStage(source(items), holding));
    expect(out.length).toBe(1001);
    expect(out.at(-1)).toBe("end");
  });

  test("cancelling the result cancels the source, with the reason", async () => {
    let reason: unknown;
    const upstream = new ReadableStream<number>({
      pull(controller) {
        controller.enqueue(1);
      },
      cancel(why) {
        reason = why;
      },
    });
    const reader = pullStage(upstream, holding).getReader();
    expect((await reader.read()).value).toBe("1.0");
    await reader.cancel("stop");
    expect(reason).toBe("stop");
  });

  test("an error from the source errors the result", async () => {
    let sent = false;
    const upstream = new ReadableStream<number>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(1);
        } else controller.error(new Error("upstream broke"));
      },
    });
    const reader = pullStage(upstream, holding).getReader();
    expect((await reader.read()).value).toBe("1.0");
    await expect(reader.read()).rejects.toThrow("upstream broke");
  });
});

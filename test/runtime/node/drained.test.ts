/** onceDrained: one call on 'drain' or 'close', and no listener left behind. */

import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { onceDrained } from "../../../runtime/node/drained.js";

describe("onceDrained", () => {
  it.each(["drain", "close"])("calls back once on '%s' and removes both listeners", (event) => {
    const stream = new PassThrough();
    let calls = 0;
    onceDrained(stream, () => calls++);
    expect([stream.listenerCount("drain"), stream.listenerCount("close")]).toEqual([1, 1]);
    stream.emit(event);
    stream.emit("drain");
    stream.emit("close");
    expect(calls).toBe(1);
    expect([stream.listenerCount("drain"), stream.listenerCount("close")]).toEqual([0, 0]);
  });
});

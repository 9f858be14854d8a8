/** A handler a transport's user set that throws is reported, never thrown into the transport. */
import { describe, expect, it } from "vitest";
import { runHandler } from "../../../runtime/jsonrpc/transport.js";

describe("runHandler", () => {
  it("runs the handler and hands what it throws to onerror as an Error", () => {
    const errors: Error[] = [];
    const transport = { onerror: (e: Error) => void errors.push(e) };
    let ran = 0;
    runHandler(transport, () => void ran++);
    runHandler(transport, () => {
      throw "not an Error";
    });
    expect(ran).toBe(1);
    expect(errors.map((e) => e.message)).toEqual(["not an Error"]);
  });

  it("drops what the handler throws when there is no onerror to report it to", () => {
    expect(() =>
      runHandler({}, () => {
        throw new Error("x");
      }),
    ).not.toThrow();
  });
});

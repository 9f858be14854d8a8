/** Envelope helpers over parsed JSON: request ids in a batch, the request a cancellation names. */
import { describe, expect, it } from "vitest";
import { cancelledId, requestIds } from "../../../runtime/jsonrpc/messages.js";

describe("requestIds", () => {
  it("lists the ids of requests only", () => {
    expect(
      requestIds([
        { jsonrpc: "2.0", id: 1, method: "a" },
        { jsonrpc: "2.0", method: "note" },
        { jsonrpc: "2.0", id: 2, result: {} },
        { jsonrpc: "2.0", id: "x", method: "b" },
        { jsonrpc: "2.0", id: 1.5, method: "c" },
        null,
        "junk",
      ]),
    ).toEqual([1, "x"]);
  });
});

describe("cancelledId", () => {
  it("reads notifications/cancelled only, with a valid id", () => {
    expect(cancelledId({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } })).toBe(
      7,
    );
    expect(cancelledId({ method: "notifications/cancelled", params: { requestId: null } })).toBeUndefined();
    expect(cancelledId({ method: "notifications/progress", params: { requestId: 7 } })).toBeUndefined();
    expect(cancelledId([{ method: "notifications/cancelled", params: { requestId: 7 } }])).toBeUndefined();
  });
});

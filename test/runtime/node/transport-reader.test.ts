/** transportReader: lines to a transport's callbacks, the default 4 MiB limit, throwing consumers. */

import { describe, expect, it } from "vitest";
import type { JsonRpcErrorObject } from "../../../runtime/jsonrpc/messages.js";
import type { Transport } from "../../../runtime/jsonrpc/transport.js";
import { transportReader } from "../../../runtime/node/transport-reader.js";

function transport() {
  const seen = { messages: [] as unknown[], frameErrors: [] as JsonRpcErrorObject[], errors: [] as Error[] };
  const t: Transport = {
    start: async () => {},
    send: async () => {},
    close: async () => {},
    onmessage: (m) => seen.messages.push(m),
    onframeerror: (e) => seen.frameErrors.push(e),
    onerror: (e) => seen.errors.push(e),
  };
  return { t, seen };
}

describe("transportReader", () => {
  it("limits lines to 4 MiB unless told otherwise", () => {
    const { t, seen } = transport();
    const lines = transportReader(t, undefined);
    const max = 4 * 1024 * 1024;
    lines.push(Buffer.from(`"${"x".repeat(max - 2)}"\n`));
    lines.push(Buffer.from(`"${"x".repeat(max - 1)}"\n`));
    expect(seen.messages).toHaveLength(1);
    expect(seen.frameErrors).toEqual([{ code: -32600, message: "Message exceeds the 4194304-byte limit" }]);
  });

  it("takes the limit it is given", () => {
    const { t, seen } = transport();
    transportReader(t, 3).push(Buffer.from('"ab"\n"a"\n'));
    expect(seen.messages).toEqual(["a"]);
    expect(seen.frameErrors).toEqual([{ code: -32600, message: "Message exceeds the 3-byte limit" }]);
  });

  it("reads the chunk's other lines when a consumer throws, reporting the throw as an Error", () => {
    const { t, seen } = transport();
    t.onmessage = (m) => {
      seen.messages.push(m);
      if (m === 1) throw "not an Error";
    };
    t.onframeerror = () => {
      throw new Error("frame consumer broke");
    };
    transportReader(t, undefined).push(Buffer.from("1\n{bad\n2\n"));
    expect(seen.messages).toEqual([1, 2]);
    expect(seen.errors.map((e) => [e instanceof Error, e.message])).toEqual([
      [true, "not an Error"],
      [true, "frame consumer broke"],
    ]);
  });
});

/** LineReader on its own: lines split anywhere, the byte limit at its edges, blank lines, bad JSON. */

import { describe, expect, it } from "vitest";
import type { JsonRpcErrorObject } from "../../../runtime/jsonrpc/messages.js";
import { LineReader } from "../../../runtime/node/line-reader.js";

function reader(maxBytes = 1024) {
  const values: unknown[] = [];
  const errors: JsonRpcErrorObject[] = [];
  const lines = new LineReader(maxBytes, { value: (v) => values.push(v), error: (e) => errors.push(e) });
  return { lines, values, errors };
}

const oversize = (maxBytes: number) => ({
  code: -32600,
  message: `Message exceeds the ${maxBytes}-byte limit`,
});
const bytes = (text: string) => Buffer.from(text);
/** `text` cut into chunks at every offset in `cuts` (byte offsets). */
const pieces = (text: string, ...cuts: number[]) => {
  const all = bytes(text);
  return [0, ...cuts].map((from, i) => all.subarray(from, cuts[i] ?? all.length));
};

describe("LineReader", () => {
  it("reads every line of a chunk and keeps a line without its newline until the newline comes", () => {
    const r = reader();
    r.lines.push(bytes('{"a":1}\n[2]\n"thr'));
    expect(r.values).toEqual([{ a: 1 }, [2]]);
    r.lines.push(bytes('ee"'));
    expect(r.values).toHaveLength(2);
    r.lines.push(bytes("\n"));
    expect(r.values).toEqual([{ a: 1 }, [2], "three"]);
    expect(r.errors).toEqual([]);
  });

  it("reads a chunk of many whole lines the same as line by line, invalid UTF-8 and blank lines included", () => {
    const text = Buffer.concat([
      bytes('{"a":1}\n\n  \n"é 😀"\n'),
      Buffer.from([0x22, 0xe2, 0x82, 0x0a]), // a quote and a cut 3-byte sequence, then the newline
      bytes('[1,2]\r\n{"bad"\n"last"\n'),
    ]);
    const whole = reader();
    whole.lines.push(text);
    // One byte at a time: every line is put together from pieces, decoded on its own.
    const byLine = reader();
    for (let at = 0; at < text.length; at++) byLine.lines.push(text.subarray(at, at + 1));
    expect(whole.values).toEqual([{ a: 1 }, "é 😀", [1, 2], "last"]);
    expect(whole.values).toEqual(byLine.values);
    expect(whole.errors.map((e) => e.code)).toEqual([-32700, -32700]);
    expect(whole.errors).toEqual(byLine.errors);
  });

  it("reassembles a line cut inside a multi-byte character, and reads string chunks", () => {
    const r = reader();
    const text = '"é 😀 中"\n';
    const emoji = bytes(text).indexOf(bytes("😀"));
    for (const piece of pieces(text, 2, emoji + 1, emoji + 3)) r.lines.push(piece);
    r.lines.push('"ü"\n');
    expect(r.values).toEqual(["é 😀 中", "ü"]);
  });

  describe("the byte limit", () => {
    const max = 16;
    const exact = `"${"x".repeat(max - 2)}"`;
    const over = `"${"x".repeat(max - 1)}"`;

    it("accepts a line of exactly the limit and refuses one byte more, in one chunk", () => {
      const r = reader(max);
      r.lines.push(bytes(`${exact}\n${over}\n${exact}\n`));
      expect(r.values).toEqual([JSON.parse(exact), JSON.parse(exact)]);
      expect(r.errors).toEqual([oversize(max)]);
    });

    it("accepts a line of exactly the limit and refuses one byte more, spread over chunks", () => {
      const r = reader(max);
      for (const piece of pieces(`${exact}\n`, 5, 11)) r.lines.push(piece);
      for (const piece of pieces(`${over}\n`, 5, 11, max)) r.lines.push(piece);
      r.lines.push(bytes(`${exact}\n`));
      expect(r.values).toEqual([JSON.parse(exact), JSON.parse(exact)]);
      expect(r.errors).toEqual([oversize(max)]);
    });

    it("counts bytes, not characters (string chunks included)", () => {
      const r = reader(max);
      r.lines.push(`"${"é".repeat(7)}"\n`);
      r.lines.push(`"${"é".repeat(8)}"\n`);
      expect(r.values).toEqual(["é".repeat(7)]);
      expect(r.errors).toEqual([oversize(max)]);
    });

    it("reports a long line once, at its newline, whatever the number of chunks it came in", () => {
      const r = reader(max);
      for (let i = 0; i < 100; i++) r.lines.push(bytes("y".repeat(10)));
      expect(r.errors).toEqual([]);
      r.lines.push(bytes('yyy\n{"after":1}\n'));
      expect(r.errors).toEqual([oversize(max)]);
      expect(r.values).toEqual([{ after: 1 }]);
    });

    it("drops a character cut at the point the limit was passed, so the next line decodes cleanly", () => {
      const r = reader(max);
      const long = bytes(`"${"é".repeat(20)}"\n`);
      r.lines.push(long.subarray(0, max));
      r.lines.push(long.subarray(max, max + 1)); // half of an "é": the line is now over the limit
      r.lines.push(long.subarray(max + 1));
      // Spread over chunks, so it goes through the same streaming decoder.
      r.lines.push(bytes('"o'));
      r.lines.push(bytes('k"\n'));
      expect(r.errors).toEqual([oversize(max)]);
      expect(r.values).toEqual(["ok"]);
    });

    it("applies to blank lines too", () => {
      const r = reader(4);
      r.lines.push(bytes(`${" ".repeat(5)}\n"ok"\n`));
      expect(r.errors).toEqual([oversize(4)]);
      expect(r.values).toEqual(["ok"]);
    });
  });

  describe("blank lines", () => {
    it("skips empty and white-space-only lines, \\r included, in one chunk", () => {
      const r = reader();
      r.lines.push(bytes('\n\n  \n\t\n\r\n \t\r\n{"a":1}\r\n\n'));
      expect(r.values).toEqual([{ a: 1 }]);
      expect(r.errors).toEqual([]);
    });

    it("skips a blank line spread over chunks", () => {
      const r = reader();
      for (const piece of ["  ", "\t", "\r", "\n", "1", "\r\n"]) r.lines.push(bytes(piece));
      expect(r.values).toEqual([1]);
      expect(r.errors).toEqual([]);
    });
  });

  describe("invalid JSON", () => {
    it("reports -32700 with the parser's message and reads on, whole or spread over chunks", () => {
      const r = reader();
      r.lines.push(bytes("{nope\n"));
      for (const piece of pieces('{"a":\n', 2)) r.lines.push(piece);
      r.lines.push(bytes("2\n"));
      expect(r.errors).toEqual([
        { code: -32700, message: expect.stringMatching(/^Parse error: \S/) },
        { code: -32700, message: expect.stringMatching(/^Parse error: \S/) },
      ]);
      expect(r.values).toEqual([2]);
    });

    it("refuses a line that is not valid UTF-8 with -32700, whole or in pieces, as an HTTP body is refused", () => {
      const r = reader();
      r.lines.push(Uint8Array.of(0x22, 0xff, 0x22, 0x0a));
      r.lines.push(Uint8Array.of(0x22, 0xc3));
      r.lines.push(Uint8Array.of(0x22, 0x0a));
      // A character cut between chunks is not invalid: the line is put together first.
      r.lines.push(Uint8Array.of(0x22, 0xc3));
      r.lines.push(Uint8Array.of(0xa9, 0x22, 0x0a));
      r.lines.push(Uint8Array.of(0x22, 0xed, 0xa0, 0x80, 0x22, 0x0a, 0x22, 0x6f, 0x6b, 0x22, 0x0a)); // a lone surrogate
      const notUtf8 = { code: -32700, message: "Parse error: the line is not valid UTF-8" };
      expect(r.errors).toEqual([notUtf8, notUtf8, notUtf8]);
      expect(r.values).toEqual(["é", "ok"]);
    });
  });
});

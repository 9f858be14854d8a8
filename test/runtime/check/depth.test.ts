/**
 * Depth is bounded before any check runs (runtime/check/depth.ts, called where every peer message is
 * checked): a value nested past the bound is refused naming the bound, never a stack overflow.
 */
import { describe, expect, it } from "vitest";
import {
  boundsDepth,
  MAX_DEPTH,
  MAX_TEXT_DEPTH,
  MAX_TEXT_ITEMS,
  textExcess,
  textTooDeep,
  tooDeep,
} from "../../../runtime/check/depth.js";
import { parseJson } from "../../../runtime/http/body.js";
import { checkedParams } from "../../../runtime/mcp/check-errors.js";

const nested = (levels: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
};

/** A check that recurses once per level, as the check of a recursive schema does. */
const recursive = (v: unknown): { path: string[]; message: string } | undefined => {
  if (Array.isArray(v)) for (const x of v) recursive(x);
  else if (typeof v === "object" && v !== null) for (const x of Object.values(v)) recursive(x);
  return undefined;
};

describe("tooDeep", () => {
  it("accepts values up to the bound and refuses one level more, naming the bound and where", () => {
    expect(tooDeep(nested(MAX_DEPTH))).toBeUndefined();
    expect(tooDeep(nested(MAX_DEPTH + 1))).toEqual({
      path: [0, "a", 0, "a"],
      message: `Nested more than ${MAX_DEPTH} levels deep below this point`,
    });
    expect(tooDeep({ ok: nested(10), deep: { x: nested(3), y: nested(20) } }, 8)?.path).toEqual([
      "deep",
      "y",
      "a",
      0,
    ]);
    expect(tooDeep("text")).toBeUndefined();
  });

  it("measures a value nested a million deep without exhausting the stack", () => {
    expect(tooDeep(nested(1_000_000))?.message).toMatch(/^Nested more than 256 levels deep/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(tooDeep(cyclic)?.message).toMatch(/^Nested more than/);
  });

  it("checkedParams answers -32602 naming the depth before a recursive check can overflow", () => {
    const params = { name: "tree", arguments: { root: nested(10_000) } };
    expect(() => recursive(params)).toThrow(RangeError);
    let error: unknown;
    try {
      checkedParams({ method: "tools/call", params: recursive }, params);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({
      code: -32602,
      message: `Invalid params for tools/call: /arguments/root/a/0: Nested more than ${MAX_DEPTH} levels deep below this point`,
    });
  });
});

describe("boundsDepth", () => {
  it("a check marked as bounding depth itself sees a value past the bound (and may mend it); others never do", () => {
    const params = { deep: nested(MAX_DEPTH + 10), ok: 1 };
    const seen: unknown[] = [];
    const mending = boundsDepth((v: unknown) => {
      seen.push(v);
      delete (v as { deep?: unknown }).deep;
      return undefined;
    });
    expect(checkedParams({ method: "x", params: mending }, params)).toEqual({ ok: 1 });
    expect(seen).toHaveLength(1);
    const plain = (v: unknown) => {
      seen.push(v);
      return undefined;
    };
    expect(() => checkedParams({ method: "x", params: plain }, { deep: nested(MAX_DEPTH + 10) })).toThrow(
      /Nested more than 256 levels deep/,
    );
    expect(seen).toHaveLength(1);
  });
});

describe("textTooDeep", () => {
  const deep = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

  it("refuses a text nested past the bound before it is parsed, counting brackets outside strings only", () => {
    expect(textTooDeep(deep(MAX_TEXT_DEPTH))).toBe(false);
    expect(textTooDeep(deep(MAX_TEXT_DEPTH + 1))).toBe(true);
    expect(textTooDeep(`{"a":[${"1,".repeat(20_000)}1]}`)).toBe(false);
    // Brackets inside strings (escaped quotes included) are text, not nesting.
    expect(textTooDeep(JSON.stringify({ s: '["{'.repeat(20_000), t: ["[["] }))).toBe(false);
    // A string ending in an escaped backslash ends there: what follows is nesting again.
    expect(textTooDeep(`[${JSON.stringify("\\")},${deep(MAX_TEXT_DEPTH)}]`)).toBe(true);
  });

  it("an HTTP body nested too deep is a -32700 naming the bound, answered without parsing it", () => {
    const bytes = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"x","params":${deep(280_000)}}`);
    const started = performance.now();
    const parsed = parseJson(bytes);
    expect(performance.now() - started).toBeLessThan(100);
    expect(parsed).toMatchObject({ error: { status: 400 } });
    expect(JSON.stringify(parsed)).toContain(
      `Parse error: the body nests more than ${MAX_TEXT_DEPTH} levels deep`,
    );
  });
});

describe("textExcess: values and member names", () => {
  /** An array of `n` - 1 zeros: `n` values in all. */
  const zeros = (n: number) =>
    `[${Array(n - 1)
      .fill("0")
      .join(",")}]`;

  it("counts every value and member name outside strings, refusing one past the bound", () => {
    expect(textExcess(zeros(MAX_TEXT_ITEMS), MAX_TEXT_DEPTH, MAX_TEXT_ITEMS)).toBeUndefined();
    expect(textExcess(zeros(MAX_TEXT_ITEMS + 1), MAX_TEXT_DEPTH, MAX_TEXT_ITEMS)).toBe("items");
    // {"a":1,"b":[2]}: the object, two names, 1, the array and 2.
    expect(textExcess('{"a":1,"b":[2]}', 100, 6)).toBeUndefined();
    expect(textExcess('{"a":1,"b":[2]}', 100, 5)).toBe("items");
    // Commas, colons and brackets inside strings are text; an escaped quote does not end the string.
    const text = JSON.stringify({ s: ',:[{",'.repeat(1000) });
    expect(textExcess(text, 100, 3)).toBeUndefined();
    // Without a bound on items only depth counts.
    expect(textExcess(zeros(MAX_TEXT_ITEMS * 2))).toBeUndefined();
  });

  it("an HTTP body holding too many values is a 413 naming the bound, answered without parsing it", () => {
    const params = `{"items":[${Array(MAX_TEXT_ITEMS).fill("{}").join(",")}]}`;
    const bytes = new TextEncoder().encode(`{"jsonrpc":"2.0","id":1,"method":"x","params":${params}}`);
    const parsed = parseJson(bytes);
    expect(parsed).toMatchObject({ error: { status: 413 } });
    expect(JSON.stringify(parsed)).toContain(
      `Payload Too Large: the body holds more than ${MAX_TEXT_ITEMS} JSON values and member names`,
    );
    // A server may allow more (an empty object counts twice).
    expect(parseJson(bytes, MAX_TEXT_ITEMS * 3)).toMatchObject({ value: { id: 1 } });
  });
});

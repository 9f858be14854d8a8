import { describe, expect, it } from "vitest";
import { AcceptMemo, accepts } from "../../../runtime/http/content-types.js";

describe("accepts", () => {
  it("matches exact types, type wildcards and */*, case-insensitively", () => {
    expect(accepts("application/json", "application/json")).toBe(true);
    expect(accepts("Application/JSON; charset=utf-8", "application/json")).toBe(true);
    expect(accepts("text/*", "text/event-stream")).toBe(true);
    expect(accepts("*/*", "text/event-stream")).toBe(true);
    expect(accepts("text/html, application/json;q=0.9", "application/json")).toBe(true);
  });

  it("q=0 excludes a type; absent or unrelated headers admit nothing", () => {
    expect(accepts("application/json;q=0", "application/json")).toBe(false);
    expect(accepts("application/json; Q = 0.000", "application/json")).toBe(false);
    expect(accepts("application/json;q=0.01", "application/json")).toBe(true);
    expect(accepts(null, "application/json")).toBe(false);
    expect(accepts("", "application/json")).toBe(false);
    expect(accepts("text/html", "application/json")).toBe(false);
    expect(accepts("application/*", "text/event-stream")).toBe(false);
  });
});

describe("AcceptMemo", () => {
  it("needs both application/json and text/event-stream", () => {
    const memo = new AcceptMemo();
    expect(memo.jsonAndSse("application/json, text/event-stream")).toBe(true);
    expect(memo.jsonAndSse("*/*")).toBe(true);
    expect(memo.jsonAndSse("application/json")).toBe(false);
    expect(memo.jsonAndSse("text/event-stream")).toBe(false);
    expect(memo.jsonAndSse("application/json, text/event-stream;q=0")).toBe(false);
    expect(memo.jsonAndSse(null)).toBe(false);
  });

  it("answers the same for a remembered header, and stays right past its bound", () => {
    const memo = new AcceptMemo();
    // Far more distinct headers than it keeps, long and short: each answer must still be the computed one.
    for (let i = 0; i < 500; i++) {
      const both = `application/json, text/event-stream, x/y${i}`;
      const one = `application/json, x/${"z".repeat(i)}`;
      expect(memo.jsonAndSse(both)).toBe(true);
      expect(memo.jsonAndSse(one)).toBe(false);
      expect(memo.jsonAndSse(both)).toBe(true);
    }
  });
});

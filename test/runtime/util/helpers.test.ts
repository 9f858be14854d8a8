/** The leaf helpers every layer shares: base64url, error messages, media types. */
import { describe, expect, it } from "vitest";
import { fromBase64Url, toBase64Url } from "../../../runtime/util/base64.js";
import { messageOf, toError, transportClosed } from "../../../runtime/util/errors.js";
import { mediaType } from "../../../runtime/util/media-type.js";

describe("base64url", () => {
  it("matches Node's encoder both ways, for every length around block edges and large inputs", () => {
    for (let n = 0; n < 70; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff);
      const text = toBase64Url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString("base64url"));
      expect(fromBase64Url(text)).toEqual(bytes);
    }
    const big = new Uint8Array(200_000).map((_, i) => i & 0xff);
    expect(toBase64Url(big)).toBe(Buffer.from(big).toString("base64url"));
  });

  it("refuses what is not base64url", () => {
    for (const bad of ["a+b", "a/b", "ab=", "a b", "abcde"]) expect(fromBase64Url(bad)).toBeUndefined();
  });
});

describe("errors", () => {
  it("messageOf never throws, toError keeps Errors", () => {
    const e = new Error("x");
    expect(toError(e)).toBe(e);
    expect(toError("plain").message).toBe("plain");
    const hostile = {
      toString() {
        throw new Error("no");
      },
    };
    expect(messageOf(hostile)).toBe("unprintable error");
    expect(transportClosed().message).toBe("Transport is not open");
  });
});

describe("mediaType", () => {
  it("drops parameters and case", () => {
    expect(mediaType("application/json")).toBe("application/json");
    expect(mediaType("Text/Event-Stream; charset=utf-8")).toBe("text/event-stream");
    expect(mediaType(null)).toBe("");
  });
});

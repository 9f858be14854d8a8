/** The options every HTTP client transport takes: the headers of each request and the fetch that sends it. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { fetchOf, type HeadersOption, resolveHeaders } from "../../../runtime/http-client/fetch-options.js";

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("resolveHeaders", () => {
  const entries = async (option: HeadersOption | undefined) => [...(await resolveHeaders(option)).entries()];

  it("takes a record, a function, an async function, or nothing", async () => {
    expect(await entries(undefined)).toEqual([]);
    expect(await entries({ Authorization: "Bearer a" })).toEqual([["authorization", "Bearer a"]]);
    expect(await entries(() => ({ authorization: "Bearer b" }))).toEqual([["authorization", "Bearer b"]]);
    expect(await entries(async () => ({ authorization: "Bearer c" }))).toEqual([
      ["authorization", "Bearer c"],
    ]);
  });

  it("gives each request headers of its own", async () => {
    const option = { authorization: "Bearer a" };
    const first = await resolveHeaders(option);
    first.set("accept", "text/event-stream");
    expect((await resolveHeaders(option)).has("accept")).toBe(false);
    expect(option).toEqual({ authorization: "Bearer a" });
  });

  it("calls the function again for each request", async () => {
    let n = 0;
    const option = () => ({ "x-n": String(++n) });
    await resolveHeaders(option);
    expect((await resolveHeaders(option)).get("x-n")).toBe("2");
  });
});

describe("fetchOf", () => {
  it("uses the given fetch", () => {
    const mine: typeof fetch = async () => new Response();
    expect(fetchOf({ fetch: mine })).toBe(mine);
  });

  it("looks up the global fetch at each call, so a later replacement is used", async () => {
    const send = fetchOf({});
    const stub = vi.fn(async () => new Response("stubbed"));
    vi.stubGlobal("fetch", stub);
    const response = await send("http://127.0.0.1:1/mcp", { method: "POST" });
    expect(await response.text()).toBe("stubbed");
    expect(stub).toHaveBeenCalledWith("http://127.0.0.1:1/mcp", { method: "POST" });
  });
});

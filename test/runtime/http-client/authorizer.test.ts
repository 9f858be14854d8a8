/**
 * authorizedFetch over a real socket: the authorizer's headers on each request, a retry after each
 * challenge it answered (at most MAX_AUTHORIZATION_RETRIES), and a failed login that releases the
 * refused response instead of holding its connection.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import {
  type Authorizer,
  authorizedFetch,
  MAX_AUTHORIZATION_RETRIES,
} from "../../../runtime/http-client/authorizer.js";

const seen: Array<string | undefined> = [];
let respond: (response: ServerResponse) => void = () => {};
const http = createServer((request, response) => {
  seen.push(request.headers.authorization);
  respond(response);
});
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
afterAll(() => {
  http.closeAllConnections();
  return new Promise<void>((resolve) => http.close(() => resolve()));
});

describe("authorizedFetch", () => {
  it("adds the authorizer's headers and retries while it answers challenges, at most the bound", async () => {
    seen.length = 0;
    respond = (response) => response.writeHead(401).end("no");
    let n = 0;
    const authorizer: Authorizer = {
      headers: async () => ({ authorization: `Bearer t${n}` }),
      challenged: async () => {
        n++;
        return true;
      },
    };
    const response = await authorizedFetch(fetch, authorizer)(url, { method: "POST", body: "{}" });
    expect(response.status).toBe(401);
    expect(seen).toEqual(["Bearer t0", "Bearer t1", "Bearer t2", "Bearer t3"]);
    expect(n).toBe(MAX_AUTHORIZATION_RETRIES);
  });

  it("a login that throws gives its error to the caller and releases the refused response", async () => {
    const closed = new Promise<void>((resolve) => {
      respond = (response) => {
        response.on("close", () => resolve());
        // A body that never ends: only the client letting go of it closes the exchange.
        response.writeHead(401, { "content-type": "text/plain" }).write("refused, and more to come");
      };
    });
    const authorizer: Authorizer = {
      headers: async () => ({}),
      challenged: async () => {
        throw new Error("login failed");
      },
    };
    await expect(authorizedFetch(fetch, authorizer)(url, { method: "POST", body: "{}" })).rejects.toThrow(
      "login failed",
    );
    await expect(
      Promise.race([
        closed,
        new Promise((_, reject) => setTimeout(() => reject(new Error("still held")), 3000)),
      ]),
    ).resolves.toBeUndefined();
  });
});

/**
 * Discovery over a real socket: which addresses are asked, in which order, and what is refused. One
 * node:http server on 127.0.0.1 serves whichever documents a test gives it and logs every path asked.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { discover } from "../../../runtime/auth/discovery.js";

const docs = new Map<string, unknown>();
const asked: string[] = [];
const http = createServer((request, response) => {
  asked.push(request.url!);
  const doc = docs.get(request.url!);
  if (doc === undefined) response.writeHead(404).end();
  else response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
});
await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

function serve(entries: Record<string, unknown>) {
  docs.clear();
  asked.length = 0;
  for (const [path, doc] of Object.entries(entries)) docs.set(path, doc);
}

const asMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/a`,
  token_endpoint: `${issuer}/t`,
});

describe("discover", () => {
  it("falls back from the challenge's address to the path-aware then root PRM; AS metadata by the spec's order", async () => {
    serve({
      "/.well-known/oauth-protected-resource": { resource: base, authorization_servers: [`${base}/tenant1`] },
      "/tenant1/.well-known/openid-configuration": asMetadata(`${base}/tenant1`),
    });
    const found = await discover(`${base}/mcp`, `${base}/custom/prm.json`);
    expect(found).toMatchObject({
      issuer: `${base}/tenant1`,
      fromMetadata: true,
      resource: { metadata: { resource: base } },
    });
    expect(asked).toEqual([
      "/custom/prm.json",
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server/tenant1",
      "/.well-known/openid-configuration/tenant1",
      "/tenant1/.well-known/openid-configuration",
    ]);
  });

  it("refuses AS metadata whose issuer is not the one its address was built from", async () => {
    serve({
      "/.well-known/oauth-protected-resource/mcp": { resource: `${base}/mcp`, authorization_servers: [base] },
      "/.well-known/oauth-authorization-server": asMetadata("https://attacker.example.com"),
    });
    await expect(discover(`${base}/mcp`, undefined)).rejects.toMatchObject({ code: "issuer_mismatch" });
  });

  it("without PRM (2025-03-26): metadata at the server's origin, else the default endpoints", async () => {
    serve({ "/.well-known/oauth-authorization-server": asMetadata(base) });
    expect(await discover(`${base}/mcp`, undefined)).toMatchObject({ issuer: base, fromMetadata: true });
    serve({});
    expect(await discover(`${base}/mcp`, undefined)).toEqual({
      issuer: base,
      fromMetadata: false,
      server: {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
      },
    });
    expect(asked).toEqual([
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
    ]);
  });

  it("names the field of a malformed document", async () => {
    serve({
      "/.well-known/oauth-protected-resource/mcp": { resource: `${base}/mcp`, authorization_servers: "x" },
    });
    await expect(discover(`${base}/mcp`, undefined)).rejects.toThrow(
      /`authorization_servers` is not a list of strings/,
    );
  });

  it("refuses a document over the size bound instead of reading it all", async () => {
    serve({
      "/.well-known/oauth-protected-resource/mcp": {
        resource: `${base}/mcp`,
        padding: "x".repeat(2 * 1024 * 1024),
      },
    });
    await expect(discover(`${base}/mcp`, undefined)).rejects.toMatchObject({
      code: "discovery_failed",
      message: expect.stringMatching(/over the 1048576-byte bound/),
    });
  });
});

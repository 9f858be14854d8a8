/**
 * DPoP-bound tokens (RFC 9449) at a protected server, over real HTTP on 127.0.0.1: proofs made with
 * jose by a client key, tokens bound to it by `cnf.jkt`; each refusal's status and challenge with the
 * tool handler never called; server nonces (§9): `use_dpop_nonce` with a `DPoP-Nonce`, then accepted.
 */
import {
  Client as ClientV2,
  DpopSession,
  StreamableHTTPClientTransport,
  withDpop,
} from "@modelcontextprotocol/client";
import { type JWTPayload, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessTokenHash } from "../../../runtime/auth/access-token-hash.js";
import type { ProtectOptions } from "../../../runtime/auth/resource-server.js";
import { dpopKey, startIssuer, type TestIssuer } from "../../fixtures/auth/issuer.js";
import {
  bearer,
  call2025,
  call2026,
  challenge,
  NOW,
  openSession,
  protectedServer,
  tokenFor,
} from "../../fixtures/auth/protected-server.js";

const cleanups: (() => Promise<void>)[] = [];
let as: TestIssuer;
let key: Awaited<ReturnType<typeof dpopKey>>;
let other: Awaited<ReturnType<typeof dpopKey>>;
beforeAll(async () => {
  as = await startIssuer();
  key = await dpopKey();
  other = await dpopKey();
  cleanups.push(() => as.close());
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const serve = (dpop: ProtectOptions["dpop"] = true) => protectedServer(as, cleanups, () => ({ dpop }));

interface ProofOptions {
  htm?: string;
  htu: string;
  token: string;
  jti?: string;
  iat?: number;
  nonce?: string;
  signer?: Awaited<ReturnType<typeof dpopKey>>;
}

async function proof(o: ProofOptions): Promise<string> {
  const signer = o.signer ?? key;
  const claims: JWTPayload = {
    htm: o.htm ?? "POST",
    htu: o.htu,
    jti: o.jti ?? crypto.randomUUID(),
    iat: o.iat ?? NOW(),
    ath: await accessTokenHash(o.token),
    ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", typ: "dpop+jwt", jwk: signer.jwk })
    .sign(signer.pair.privateKey);
}

const bound = (resource: string) => tokenFor(as, resource, { cnf: { jkt: key.jkt } });
const dpopHeaders = (token: string, p: string) => ({ authorization: `DPoP ${token}`, dpop: p });

describe("DPoP-bound tokens", () => {
  it("a valid proof gets through in both eras; the metadata and the 401 advertise DPoP", async () => {
    const served = await serve();
    const token = await bound(served.resource);
    const ok = await call2026(
      served.url,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("whoami alice");
    // Every request carries its own proof.
    const session = await openSession(served.url, async () =>
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    const inSession = await call2025(
      served.url,
      session,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    expect(inSession.status).toBe(200);
    await inSession.text();

    const metadata = await (
      await fetch(served.resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
    ).json();
    expect(metadata.dpop_signing_alg_values_supported).toContain("ES256");
    const none = await call2026(served.url, "whoami", {});
    expect(none.status).toBe(401);
    expect(challenge(none, "Bearer").error).toBeUndefined();
    expect(challenge(none, "DPoP").algs).toContain("ES256");
    await none.text();
  });

  const refusals: {
    name: string;
    headers: (url: string, token: string) => Promise<Record<string, string>>;
    scheme: string;
    error: string;
  }[] = [
    {
      name: "a bound token with the Bearer scheme",
      headers: async (_url, token) => bearer(token),
      scheme: "Bearer",
      error: "invalid_token",
    },
    {
      name: "no proof",
      headers: async (_url, token) => ({ authorization: `DPoP ${token}` }),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "wrong htu",
      headers: async (url, token) =>
        dpopHeaders(token, await proof({ htu: url.replace("/mcp", "/other"), token })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "htu with a query",
      headers: async (url, token) => dpopHeaders(token, await proof({ htu: `${url}?x=1`, token })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "wrong htm",
      headers: async (url, token) => dpopHeaders(token, await proof({ htm: "GET", htu: url, token })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "wrong ath (a proof for another token)",
      headers: async (url, token) => dpopHeaders(token, await proof({ htu: url, token: `${token}x` })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "a proof by another key than the token's cnf.jkt",
      headers: async (url, token) => dpopHeaders(token, await proof({ htu: url, token, signer: other })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
    {
      name: "an old iat",
      headers: async (url, token) => dpopHeaders(token, await proof({ htu: url, token, iat: NOW() - 600 })),
      scheme: "DPoP",
      error: "invalid_dpop_proof",
    },
  ];

  for (const r of refusals) {
    it(`${r.name} → 401 ${r.error}`, async () => {
      const served = await serve();
      const token = await bound(served.resource);
      const response = await call2026(served.url, "whoami", await r.headers(served.url, token));
      expect(response.status).toBe(401);
      expect(challenge(response, r.scheme).error).toBe(r.error);
      expect(await response.text()).not.toContain(token);
      expect(served.calls).toEqual([]);
    });
  }

  it("an unbound token with the DPoP scheme → 401 invalid_token", async () => {
    const served = await serve();
    const token = await tokenFor(as, served.resource);
    const response = await call2026(
      served.url,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    expect(response.status).toBe(401);
    expect(challenge(response, "DPoP").error).toBe("invalid_token");
    await response.text();
    expect(served.calls).toEqual([]);
  });

  it("a replayed proof (same jti) is refused the second time", async () => {
    const served = await serve();
    const token = await bound(served.resource);
    const p = await proof({ htu: served.url, token });
    const first = await call2026(served.url, "whoami", dpopHeaders(token, p));
    expect(first.status).toBe(200);
    await first.text();
    const again = await call2026(served.url, "whoami", dpopHeaders(token, p));
    expect(again.status).toBe(401);
    expect(challenge(again, "DPoP").error).toBe("invalid_dpop_proof");
    await again.text();
    expect(served.calls.length).toBe(1);
  });

  it("the official SDK v2 client's DPoP proofs (withDpop) pass, nonce challenge included", async () => {
    const served = await serve({ nonces: true });
    const session = await DpopSession.create({ alg: "ES256" });
    const token = await tokenFor(as, served.resource, { sub: "sdk-dpop", cnf: { jkt: session.thumbprint } });
    const client = new ClientV2({ name: "sdk-v2-dpop", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        fetch: withDpop(session, () => token)(fetch),
      }),
    );
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "whoami sdk-dpop mcp:read" }]);
    expect(session.nonceFor(served.url)).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    await client.close();
  });

  it("server nonces: use_dpop_nonce with a DPoP-Nonce header, then the proof carrying it passes", async () => {
    const served = await serve({ nonces: true });
    const token = await bound(served.resource);
    const first = await call2026(
      served.url,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    expect(first.status).toBe(401);
    expect(challenge(first, "DPoP").error).toBe("use_dpop_nonce");
    const nonce = first.headers.get("dpop-nonce");
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    await first.text();
    const wrong = await call2026(
      served.url,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token, nonce: "made-up" })),
    );
    expect(wrong.status).toBe(401);
    expect(challenge(wrong, "DPoP").error).toBe("use_dpop_nonce");
    await wrong.text();
    expect(served.calls).toEqual([]);
    const retried = await call2026(
      served.url,
      "whoami",
      dpopHeaders(token, await proof({ htu: served.url, token, nonce: nonce! })),
    );
    expect(retried.status).toBe(200);
    await retried.text();
    expect(served.calls.length).toBe(1);
  });

  it("a step-up a handler asks for (InsufficientScope) challenges a DPoP-bound token with the DPoP scheme, as a refusal before dispatch does", async () => {
    const served = await serve();
    const token = await bound(served.resource);
    const handler = await call2026(
      served.url,
      "step-up",
      dpopHeaders(token, await proof({ htu: served.url, token })),
    );
    expect(handler.status).toBe(403);
    expect(handler.headers.get("www-authenticate")).toMatch(/^DPoP /);
    expect(challenge(handler, "DPoP")).toMatchObject({
      error: "insufficient_scope",
      scope: "mcp:read mcp:admin",
    });
    await handler.text();
    // The same token lacking a scope every request needs, refused before dispatch: the same scheme.
    const narrow = await tokenFor(as, served.resource, { cnf: { jkt: key.jkt }, scope: "other" });
    const before = await call2026(
      served.url,
      "whoami",
      dpopHeaders(narrow, await proof({ htu: served.url, token: narrow })),
    );
    expect(before.status).toBe(403);
    expect(before.headers.get("www-authenticate")).toMatch(/^DPoP /);
    await before.text();
    // A Bearer token's step-up stays a Bearer challenge.
    const plain = await call2026(served.url, "step-up", bearer(await tokenFor(as, served.resource)));
    expect(plain.status).toBe(403);
    expect(plain.headers.get("www-authenticate")).toMatch(/^Bearer /);
    await plain.text();
  });
});

/**
 * A TokenVerifier for opaque tokens: OAuth 2.0 Token Introspection (RFC 7662) at the authorization
 * server, this server authenticating as a client. An answer is accepted when `active` is true, its
 * expiry and not-before hold (bounded skew), its issuer is the expected one and its audience names this
 * server. Accepted answers are cached (keyed by a digest of the token, never the token) until the
 * earlier of their expiry and `cacheTtlSec`, at most `maxEntries` of them.
 */

import type { AuthInfo } from "../mcp/auth-info.js";
import { toBase64, toBase64Url, utf8Bytes } from "../util/base64.js";
import { canonicalResource } from "./protected-resource.js";
import { VerifiedTokens } from "./verified-tokens.js";
import { audiencesOf, authInfoOf, InvalidToken, type TokenVerifier } from "./verifier.js";

export interface IntrospectionOptions {
  /** The introspection endpoint (`introspection_endpoint` of the authorization server's metadata). */
  endpoint: string | URL;
  clientId: string;
  clientSecret: string;
  /** How this server authenticates to the endpoint (default `client_secret_basic`). */
  clientAuth?: "client_secret_basic" | "client_secret_post";
  /** The audience answers must name: this server's resource URI (made canonical). */
  audience: string;
  /** The issuer answers must name, when they name one. */
  issuer?: string;
  /** Accept an answer that names no audience (default false: the spec requires the check). */
  allowMissingAudience?: boolean;
  /** Longest an answer is reused, seconds (default 60; 0: no cache). */
  cacheTtlSec?: number;
  /** Answers cached at most (default 1000; the oldest goes first). */
  maxEntries?: number;
  /** Clock skew allowed on `exp`/`nbf`, seconds (default 30). */
  clockToleranceSec?: number;
  /** Request timeout, ms (default 5 s). */
  timeoutMs?: number;
  scopeClaim?: string;
  fetch?: typeof fetch;
  /** Clock (tests), ms since the epoch. */
  now?: () => number;
}

/** A TokenVerifier asking `options.endpoint` about each token it has not cached. */
export function introspectionVerifier(options: IntrospectionOptions): TokenVerifier {
  const audience = canonicalResource(options.audience);
  const skew = options.clockToleranceSec ?? 30;
  const now = options.now ?? Date.now;
  const doFetch = options.fetch ?? fetch;
  /** Keyed by a digest of the token: an introspection round trip costs far more than hashing. */
  const cache = new VerifiedTokens((options.cacheTtlSec ?? 60) * 1000, options.maxEntries ?? 1000);

  const ask = async (token: string): Promise<Record<string, unknown>> => {
    const form = new URLSearchParams({ token, token_type_hint: "access_token" });
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    if ((options.clientAuth ?? "client_secret_basic") === "client_secret_basic") {
      // RFC 6749 §2.3.1: each part form-encoded before joining.
      const pair = `${formEncode(options.clientId)}:${formEncode(options.clientSecret)}`;
      headers.authorization = `Basic ${toBase64(utf8Bytes(pair))}`;
    } else {
      form.set("client_id", options.clientId);
      form.set("client_secret", options.clientSecret);
    }
    const response = await doFetch(new URL(options.endpoint), {
      method: "POST",
      headers,
      body: form.toString(),
      // A redirect would carry the token (and our credentials) to wherever it points.
      redirect: "error",
      signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`token introspection failed: HTTP ${response.status}`);
    }
    const answer: unknown = await response.json();
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
      throw new Error("token introspection answered something other than a JSON object");
    }
    return answer as Record<string, unknown>;
  };

  const judge = (claims: Record<string, unknown>): AuthInfo => {
    if (claims.active !== true) throw new InvalidToken("the token is not active");
    const seconds = now() / 1000;
    if (typeof claims.exp === "number" && claims.exp + skew <= seconds) {
      throw new InvalidToken("the token has expired");
    }
    if (typeof claims.nbf === "number" && claims.nbf - skew > seconds) {
      throw new InvalidToken("the token is not valid yet");
    }
    if (options.issuer !== undefined && claims.iss !== undefined && claims.iss !== options.issuer) {
      throw new InvalidToken("the token is not from a trusted issuer");
    }
    const audiences = audiencesOf(claims);
    if (
      audiences.length === 0
        ? !options.allowMissingAudience
        : !audiences.some((a) => sameResource(a, audience))
    ) {
      throw new InvalidToken("the token is not for this resource");
    }
    return authInfoOf(claims, audience, options.scopeClaim);
  };

  return async (token) => {
    const key = await digest(token);
    const hit = cache.get(key, now());
    if (hit) return hit;
    const info = judge(await ask(token));
    cache.set(key, info, now());
    return info;
  };
}

function sameResource(named: string, audience: string): boolean {
  try {
    return canonicalResource(named) === audience;
  } catch {
    return false;
  }
}

const formEncode = (s: string) => new URLSearchParams({ s }).toString().slice(2);

async function digest(token: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8Bytes(token))));
}

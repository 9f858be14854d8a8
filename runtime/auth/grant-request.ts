/**
 * One token endpoint request (RFC 6749 §3.2): a grant's form, the client's authentication, and when the
 * client holds a DPoP key a proof (RFC 9449 §5), sent again once with the server's nonce when it answers
 * `use_dpop_nonce` (§8). Success is a checked token response; refusal an OAuthError with the server's
 * `error` code. Neither a token nor the assertion is ever put in an error message.
 */

import type { ClientAuthenticator } from "./client-authenticators.js";
import type { DpopProver } from "./dpop-proof.js";

export interface TokenResponse {
  readonly access_token: string;
  /** `Bearer`, or `DPoP` for a token bound to the client's DPoP key. */
  readonly token_type: string;
  readonly expires_in?: number;
  readonly refresh_token?: string;
  readonly scope?: string;
  /** Token exchange (RFC 8693 §2.2.1): what kind of token `access_token` holds. */
  readonly issued_token_type?: string;
}

/** The token endpoint refused the request (RFC 6749 §5.2), or answered something that is no token. */
export class OAuthError extends Error {
  override readonly name = "OAuthError";
  constructor(
    /** The `error` code (`invalid_grant`, `invalid_client`, …), or `invalid_response` for a broken answer. */
    readonly error: string,
    readonly description: string | undefined,
    /** The HTTP status of the answer. */
    readonly status: number,
    where: string,
  ) {
    super(`${where} refused the request: ${error}${description ? ` (${description})` : ""} [HTTP ${status}]`);
  }
}

export interface GrantRequest {
  readonly tokenEndpoint: string;
  /** The server's issuer identifier (audience of a client assertion). */
  readonly issuer: string;
  /** The grant's parameters (`grant_type` and its own). */
  readonly grant: Readonly<Record<string, string>>;
  readonly authenticate: ClientAuthenticator;
  /** Asks for a token bound to this key: every attempt carries a fresh proof. */
  readonly dpop?: DpopProver;
  readonly fetch?: typeof fetch;
  /** Names the server in errors; "the token endpoint" by default. */
  readonly name?: string;
}

/** A token response is small; anything larger is not one. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export async function requestGrant(request: GrantRequest): Promise<TokenResponse> {
  const where = request.name ?? "the token endpoint";
  const send = request.fetch ?? ((input, init) => fetch(input, init));
  // One retry for a DPoP nonce, and only for a nonce not tried already: no loop however the server answers.
  for (let attempt = 0; ; attempt++) {
    const form = new URLSearchParams(request.grant);
    const headers = new Headers({
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    });
    await request.authenticate({
      form,
      headers,
      issuer: request.issuer,
      tokenEndpoint: request.tokenEndpoint,
    });
    if (request.dpop)
      headers.set("dpop", await request.dpop.proof({ method: "POST", url: request.tokenEndpoint }));
    const response = await send(request.tokenEndpoint, {
      method: "POST",
      headers,
      body: form.toString(),
      redirect: "error",
    });
    const body = await readJson(response, where);
    if (response.ok) return tokenResponse(body, response.status, where);
    const error = typeof body?.error === "string" ? body.error : "invalid_response";
    const description = typeof body?.error_description === "string" ? body.error_description : undefined;
    if (
      error === "use_dpop_nonce" &&
      request.dpop &&
      attempt === 0 &&
      request.dpop.learnNonce(request.tokenEndpoint, response)
    )
      continue;
    throw new OAuthError(error, description, response.status, where);
  }
}

async function readJson(response: Response, where: string): Promise<Record<string, unknown> | undefined> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_RESPONSE_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new OAuthError("invalid_response", "the answer is too large", response.status, where);
  }
  const text = await response.text();
  if (text.length > MAX_RESPONSE_BYTES)
    throw new OAuthError("invalid_response", "the answer is too large", response.status, where);
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function tokenResponse(
  body: Record<string, unknown> | undefined,
  status: number,
  where: string,
): TokenResponse {
  const broken = (what: string) => new OAuthError("invalid_response", what, status, where);
  if (!body) throw broken("the answer is not a JSON object");
  const { access_token, token_type, expires_in, refresh_token, scope, issued_token_type } = body;
  if (typeof access_token !== "string" || access_token === "") throw broken("no access_token");
  if (typeof token_type !== "string" || token_type === "") throw broken("no token_type");
  if (expires_in !== undefined && (typeof expires_in !== "number" || !(expires_in >= 0)))
    throw broken("expires_in is not a non-negative number");
  for (const [name, value] of Object.entries({ refresh_token, scope, issued_token_type }))
    if (value !== undefined && typeof value !== "string") throw broken(`${name} is not a string`);
  return {
    access_token,
    token_type,
    ...(expires_in !== undefined && { expires_in: expires_in as number }),
    ...(refresh_token !== undefined && { refresh_token: refresh_token as string }),
    ...(scope !== undefined && { scope: scope as string }),
    ...(issued_token_type !== undefined && { issued_token_type: issued_token_type as string }),
  };
}

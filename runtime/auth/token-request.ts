/**
 * Requests to the token endpoint (OAuth 2.1 §3.2): a form POST carrying the grant, the client's
 * authentication, and `resource` (RFC 8707) when the client knows the resource. The answer becomes
 * `StoredTokens`; an error answer an `OAuthClientError` with the server's `error` code (no secret in it).
 */

import { readJson, requestDeadline } from "./bounded-json.js";
import type { ClientAuthentication, ClientAuthenticationContext } from "./client-auth.js";
import { OAuthClientError } from "./errors.js";
import type { SenderConstraint } from "./sender-constraint.js";
import type { StoredTokens } from "./token-store.js";

export interface TokenRequest {
  /** The grant's fields: `grant_type` and its parameters (`code`, `code_verifier`, `refresh_token`, …). */
  readonly grant: Readonly<Record<string, string | undefined>>;
  readonly resource?: string;
  readonly scope?: string;
  readonly authenticate: ClientAuthentication;
  readonly context: ClientAuthenticationContext;
  readonly fetch?: typeof fetch;
  /** Adds proofs (DPoP) and may ask for one more try on a refusal. */
  readonly constraint?: SenderConstraint;
  /** A token exchange (RFC 8693 §2.2.1): the `issued_token_type` the answer must name. */
  readonly issuedTokenType?: string;
}

/** The form a token request sends, before authentication is added. */
export function tokenRequestBody(
  request: Pick<TokenRequest, "grant" | "resource" | "scope">,
): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(request.grant)) if (value !== undefined) body.set(name, value);
  if (request.resource !== undefined) body.set("resource", request.resource);
  if (request.scope !== undefined) body.set("scope", request.scope);
  return body;
}

/** The token response, checked: an access token and its type, `expires_in` turned into `expires_at`. */
export function tokensFrom(doc: unknown, requestedScope: string | undefined, now = Date.now()): StoredTokens {
  if (typeof doc !== "object" || doc === null)
    throw new OAuthClientError("invalid_token_response", "the token response is not a JSON object");
  const d = doc as Record<string, unknown>;
  if (typeof d.access_token !== "string" || d.access_token === "")
    throw new OAuthClientError("invalid_token_response", "the token response has no access_token");
  if (typeof d.token_type !== "string")
    throw new OAuthClientError("invalid_token_response", "the token response has no token_type");
  const expiresIn = typeof d.expires_in === "number" ? d.expires_in : Number(d.expires_in);
  const scope = typeof d.scope === "string" ? d.scope : requestedScope;
  return {
    access_token: d.access_token,
    token_type: d.token_type,
    ...(typeof d.refresh_token === "string" && { refresh_token: d.refresh_token }),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 && { expires_at: Math.floor(now / 1000) + expiresIn }),
    ...(scope !== undefined && { scope }),
  };
}

export async function requestToken(request: TokenRequest): Promise<StoredTokens> {
  const endpoint = request.context.tokenEndpoint;
  const body = tokenRequestBody(request);
  const headers = new Headers({
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  });
  const send = async () => {
    // Per attempt: a client assertion, like a DPoP proof, is good for one request only.
    await request.authenticate({ headers, body }, request.context);
    await request.constraint?.tokenRequest({ url: endpoint, method: "POST", headers });
    try {
      return await (request.fetch ?? fetch)(endpoint, {
        method: "POST",
        headers,
        body,
        redirect: "error",
        signal: requestDeadline(),
      });
    } catch (error) {
      throw new OAuthClientError(
        "token_request_failed",
        `the token request to ${endpoint} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  let response = await send();
  if (!response.ok && request.constraint?.tokenRefused && (await request.constraint.tokenRefused(response))) {
    void response.body?.cancel().catch(() => {});
    response = await send();
  }
  const doc: unknown = await readJson(response, `the token response of ${endpoint}`).catch((error) => {
    throw new OAuthClientError(
      "token_request_failed",
      error instanceof Error ? error.message : String(error),
    );
  });
  if (!response.ok) {
    const d = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
    const code = typeof d.error === "string" ? d.error : "token_request_failed";
    const description = typeof d.error_description === "string" ? `: ${d.error_description}` : "";
    throw new OAuthClientError(
      code,
      `the token endpoint ${endpoint} refused the ${String(request.grant.grant_type)} grant (${response.status} ${code}${description})`,
      response.status,
    );
  }
  const issued = (doc as { issued_token_type?: unknown } | undefined)?.issued_token_type;
  if (request.issuedTokenType !== undefined && issued !== request.issuedTokenType)
    throw new OAuthClientError(
      "invalid_token_response",
      `the token endpoint ${endpoint} issued ${typeof issued === "string" ? issued : "no issued_token_type"}, not ${request.issuedTokenType}`,
    );
  return tokensFrom(doc, request.scope);
}

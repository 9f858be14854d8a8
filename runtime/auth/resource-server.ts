/**
 * `protect()`: an MCP endpoint as an OAuth 2.1 resource server (MCP authorization, RFC 6750, RFC 9728,
 * RFC 9449). What it returns is the `auth` option of `serveHttp` / `createStreamableHttpHandler`.
 * Tokens are only ever passed to the verifier: never logged, never echoed in a refusal.
 */

import { type AuthInfo, missingScopes } from "../mcp/auth-info.js";
import { bearerChallenge, type Challenge, type ChallengeParams, formatChallenges } from "./challenge.js";
import { type DpopOptions, DpopVerifier } from "./dpop-verify.js";
import type { Refusal, ResourceGuard, Verdict } from "./guard.js";
import {
  canonicalResource,
  protectedResourceMetadata,
  protectedResourceMetadataUrls,
} from "./protected-resource.js";
import { type AuthRequest, InvalidToken, type TokenVerifier } from "./verifier.js";

/** Default bound on the `Authorization` header (and the `DPoP` one): larger ones get 431. */
export const DEFAULT_MAX_AUTHORIZATION_BYTES = 8192;

export interface ProtectOptions {
  /** URL of the MCP endpoint as clients reach it (made canonical: the audience tokens must name). */
  resource: string | URL;
  /** Issuers of the authorization servers whose tokens are accepted (listed in the metadata). */
  authorizationServers: readonly string[];
  /** Turns an access token into an AuthInfo or throws InvalidToken: `jwtVerifier`, `introspectionVerifier`, yours. */
  verifier: TokenVerifier;
  /** Listed as `scopes_supported` (`offline_access` left out). Default: `requiredScopes`. */
  scopesSupported?: readonly string[];
  /** Scopes every request needs (default none); named in 401 challenges. */
  requiredScopes?: readonly string[];
  resourceName?: string;
  resourceDocumentation?: string;
  /** Accept DPoP-bound tokens with the `DPoP` scheme (RFC 9449); `required`: refuse Bearer tokens. */
  dpop?: boolean | (DpopOptions & { required?: boolean });
  /** Largest `Authorization` (and `DPoP`) header accepted, bytes (default 8 KiB) → 431. */
  maxAuthorizationBytes?: number;
}

const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** The resource server for one endpoint; throws TypeError on a resource URI that cannot be one. */
export function protect(options: ProtectOptions): ResourceGuard {
  return new ProtectedResource(options);
}

class ProtectedResource implements ResourceGuard {
  readonly resource: string;
  readonly #options: ProtectOptions;
  readonly #metadataUrl: string;
  readonly #paths: ReadonlySet<string>;
  readonly #document: string;
  readonly #required: readonly string[];
  readonly #dpop: DpopVerifier | undefined;
  readonly #dpopRequired: boolean;
  readonly #maxBytes: number;
  /** The request URI a DPoP proof must name: the endpoint, without query. */
  readonly #htu: string;

  constructor(options: ProtectOptions) {
    this.#options = options;
    this.resource = canonicalResource(options.resource);
    const urls = protectedResourceMetadataUrls(this.resource);
    this.#metadataUrl = urls.pathAware;
    this.#paths = new Set([new URL(urls.pathAware).pathname, new URL(urls.root).pathname]);
    this.#required = [...(options.requiredScopes ?? [])];
    const dpop = options.dpop;
    this.#dpop = dpop ? new DpopVerifier(typeof dpop === "object" ? dpop : {}) : undefined;
    this.#dpopRequired = typeof dpop === "object" && dpop.required === true;
    this.#maxBytes = options.maxAuthorizationBytes ?? DEFAULT_MAX_AUTHORIZATION_BYTES;
    const u = new URL(this.resource);
    this.#htu = `${u.protocol}//${u.host}${u.pathname}`;
    this.#document = JSON.stringify(
      protectedResourceMetadata({
        resource: this.resource,
        authorizationServers: options.authorizationServers,
        scopesSupported: options.scopesSupported ?? this.#required,
        ...(options.resourceName !== undefined ? { resourceName: options.resourceName } : {}),
        ...(options.resourceDocumentation !== undefined
          ? { resourceDocumentation: options.resourceDocumentation }
          : {}),
        ...(this.#dpop
          ? { dpopAlgorithms: this.#dpop.algorithms, dpopBoundRequired: this.#dpopRequired }
          : {}),
      }),
    );
  }

  metadataAt(pathname: string): string | undefined {
    return this.#paths.has(pathname) ? this.#document : undefined;
  }

  async authorize(request: AuthRequest): Promise<Verdict> {
    const header = request.header("authorization");
    const proof = request.header("dpop");
    if ((header?.length ?? 0) > this.#maxBytes || (proof?.length ?? 0) > this.#maxBytes) {
      return this.#refuse(431, "Request Header Fields Too Large: the Authorization header is too large", {
        error: "invalid_request",
        errorDescription: "the Authorization header is too large",
      });
    }
    if (tokenInQuery(request.url)) {
      return this.#refuse(400, "Bad Request: access tokens go in the Authorization header, not the URL", {
        error: "invalid_request",
        errorDescription: "access tokens are accepted in the Authorization header only",
      });
    }
    if (header === null) return this.#refuse(401, "Unauthorized: an access token is required", {});
    const space = header.indexOf(" ");
    const scheme = (space < 0 ? header : header.slice(0, space)).toLowerCase();
    const token = space < 0 ? "" : header.slice(space + 1).trim();
    const dpopScheme = scheme === "dpop" && this.#dpop !== undefined;
    if (scheme !== "bearer" && !dpopScheme) {
      return this.#refuse(401, "Unauthorized: an access token is required", {});
    }
    const challengeScheme = dpopScheme ? "DPoP" : "Bearer";
    if (!B64TOKEN.test(token)) {
      return this.#refuse(400, "Bad Request: malformed Authorization header", {
        scheme: challengeScheme,
        error: "invalid_request",
        errorDescription: "the Authorization header is malformed",
      });
    }
    const invalid = (description: string) =>
      this.#refuse(401, `Unauthorized: ${description}`, {
        scheme: challengeScheme,
        error: "invalid_token",
        errorDescription: description,
      });
    let auth: AuthInfo;
    try {
      auth = await this.#options.verifier(token, request);
    } catch (error) {
      if (error instanceof InvalidToken) return invalid(error.description);
      // Reported as a server fault (500): the message must not carry the token into a log.
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`token verification failed: ${message.replaceAll(token, "[token]")}`);
    }
    const jkt = boundKey(auth);
    if (!dpopScheme) {
      if (jkt !== undefined) return invalid("a DPoP-bound token must be sent with the DPoP scheme");
      if (this.#dpopRequired) return invalid("only DPoP-bound tokens are accepted");
    } else {
      if (jkt === undefined) return invalid("the token is not DPoP-bound");
      const checked = await this.#dpop!.verify({ proof, method: request.method, htu: this.#htu, token, jkt });
      if (!checked.ok) {
        const nonce = checked.error === "use_dpop_nonce" ? this.#dpop!.nonce : undefined;
        return this.#refuse(
          401,
          `Unauthorized: ${checked.description}`,
          { scheme: "DPoP", error: checked.error, errorDescription: checked.description },
          nonce !== undefined ? { "dpop-nonce": nonce } : {},
        );
      }
    }
    const refusal = this.scopeRefusal(auth, [], request);
    return refusal ? { refusal } : { auth };
  }

  scopeRefusal(auth: AuthInfo, required: readonly string[], request: AuthRequest): Refusal | undefined {
    const all = this.#withDefaults(required);
    if (missingScopes(auth.scopes, all).length === 0) return undefined;
    const dpop = this.#dpop !== undefined && /^dpop /i.test(request.header("authorization") ?? "");
    return this.#forbidden(all, dpop ? "DPoP" : "Bearer");
  }

  insufficientScope(required: readonly string[], auth?: AuthInfo): Refusal {
    // A bound token got this far only with the DPoP scheme (as Bearer it is refused in authorize).
    const bound = typeof (auth?.claims.cnf as { jkt?: unknown } | undefined)?.jkt === "string";
    return this.#forbidden(this.#withDefaults(required), this.#dpop && bound ? "DPoP" : "Bearer");
  }

  #withDefaults(required: readonly string[]): readonly string[] {
    return required.length === 0 ? this.#required : [...new Set([...this.#required, ...required])];
  }

  #forbidden(scope: readonly string[], scheme: string): Refusal {
    return this.#refusal(403, "Forbidden: insufficient scope", {
      scheme,
      error: "insufficient_scope",
      errorDescription: "the token lacks scopes this request needs",
      scope,
    });
  }

  #refuse(
    status: number,
    message: string,
    p: ChallengeParams,
    headers: Record<string, string> = {},
  ): Verdict {
    return { refusal: this.#refusal(status, message, p, headers) };
  }

  /** A refusal with the challenges: the one `p` describes, and the other scheme's plain one when DPoP is on. */
  #refusal(
    status: number,
    message: string,
    p: ChallengeParams,
    headers: Record<string, string> = {},
  ): Refusal {
    const scheme = p.scheme ?? "Bearer";
    const challenges: Challenge[] = [];
    const base = { resourceMetadata: this.#metadataUrl, scope: p.scope ?? this.#required };
    challenges.push(bearerChallenge({ ...p, ...base, scheme, ...(scheme === "DPoP" ? this.#algs() : {}) }));
    if (this.#dpop && scheme === "Bearer" && p.error === undefined) {
      challenges.push(bearerChallenge({ ...base, scheme: "DPoP", ...this.#algs() }));
    }
    return {
      status,
      message,
      headers: { ...headers, "www-authenticate": formatChallenges(challenges), "cache-control": "no-store" },
    };
  }

  #algs(): { algs: readonly string[] } {
    return { algs: this.#dpop!.algorithms };
  }
}

/** Whether the query string carries `access_token` (RFC 6750 §2.3, which MCP forbids). */
function tokenInQuery(url: string): boolean {
  const q = url.indexOf("?");
  return q >= 0 && new URLSearchParams(url.slice(q + 1)).has("access_token");
}

/** The token's `cnf.jkt` (RFC 9449 §6), when it is DPoP-bound. */
function boundKey(auth: AuthInfo): string | undefined {
  const cnf = auth.claims.cnf;
  if (typeof cnf !== "object" || cnf === null) return undefined;
  const jkt = (cnf as { jkt?: unknown }).jkt;
  return typeof jkt === "string" ? jkt : undefined;
}

/**
 * A real OAuth 2.1 authorization server for tests: `oidc-provider` (v9) on 127.0.0.1, random port.
 *
 * ```ts
 * const as = await startAuthorizationServer({ scopes: ["mcp:read", "mcp:admin"], accessTokenTtl: 60 });
 * as.issuer; // "http://127.0.0.1:<port>"; metadata at /.well-known/oauth-authorization-server
 * as.addResource({ uri: "http://127.0.0.1:<rs port>/mcp", scopes: ["mcp:read"] }); // once its port is known
 * const { code, state, iss } = await as.authorize(authorizationUrl, { accountId: "bob" });
 * await as.close();
 * ```
 *
 * What it does, per request of a client:
 * - Discovery: one metadata document at `/.well-known/oauth-authorization-server` (RFC 8414) and at
 *   `/.well-known/openid-configuration`, or at one of them only (`discovery`), with
 *   `code_challenge_methods_supported: ["S256"]`, `authorization_response_iss_parameter_supported: true`,
 *   `registration_endpoint`, `introspection_endpoint`, `jwks_uri`. `metadata()` fetches it.
 * - Dynamic Client Registration (RFC 7591) open to anyone at `registration_endpoint`. A registered
 *   `scope` does not limit what the client may ask later unless `limitToRegisteredScope` says so.
 *   Loopback `http` redirect URIs are accepted for both `application_type` web and native (v9 refuses
 *   plain http only for implicit-flow web clients; native clients also match a loopback redirect on any
 *   port, RFC 8252). Token endpoint auth `client_secret_basic`, `client_secret_post`, `none` and
 *   `private_key_jwt` are enabled. `clients` pre-registers more (e.g. for the client credentials grant).
 * - Authorization code with PKCE S256, required of every client. A request must grant some scope
 *   (oidc-provider answers `access_denied` otherwise) unless `scopeWhenOmitted` fills one in. The login
 *   page is automated by `authorize()`; consent is automatic and grants what was asked within each
 *   resource's allowed scopes. Scopes are the server's `scopes` (listed in `scopes_supported`).
 * - Client credentials grant for clients registered with it, tokens per resource as below.
 * - DPoP (RFC 9449): a token request with a `DPoP` proof gets a DPoP-bound token (`token_type: DPoP`,
 *   `cnf.jkt` in the JWT); `dpopNonce` makes the token endpoint demand a nonce first.
 * - Resource indicators (RFC 8707): `resource` must name a configured resource (`invalid_target`
 *   otherwise). A `"jwt"` resource gets JWT access tokens (`typ: at+jwt`, signed with the server's key,
 *   `aud` = the resource URI, `scope` = the scopes asked for that this resource allows, `client_id`,
 *   `sub` = the account, `iss`, `iat`, `exp`, `jti`); an `"opaque"` resource gets reference tokens that only
 *   introspection can read. A token request without `resource` uses the one granted at authorization.
 * - Refresh tokens: `refreshTokens: "always"` (default) issues one to every client registered with the
 *   `refresh_token` grant; `"offline_access"` only when that scope was granted; `"never"` never. Public
 *   clients' refresh tokens rotate on use.
 * - Introspection (RFC 7662) at `introspection_endpoint` for opaque tokens (oidc-provider refuses to
 *   introspect JWTs), authenticated with the pre-registered `introspector` client's id and secret.
 * - Signing key: one ES256 (default) or RS256 key made at start; its public half at `jwks_uri`.
 *   `signJwt()` signs any payload with it, for tests of tokens the server would never issue.
 *
 * `log` records what happened without any token or secret: registrations, authorization requests
 * accepted, token grants. `errors` collects the provider's server errors (a test may assert it is empty).
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import Provider, {
  type ClientView,
  errors,
  type KoaContextWithOIDC,
  type ResourceServerInfo,
} from "oidc-provider";
import { MapStore } from "./oidc-adapter.js";
import {
  AuthorizationDenied,
  type AuthorizationResponse,
  type AuthorizeOptions,
  authorize,
  authorizeRedirect,
} from "./oidc-authorize.js";
import { handleInteraction, INTERACTION_PREFIX } from "./oidc-interactions.js";

export { AuthorizationDenied, type AuthorizationResponse, type AuthorizeOptions };

export interface ResourceOptions {
  /** The resource indicator (RFC 8707): the protected server's canonical URI, compared exactly. */
  readonly uri: string;
  /** Scopes a token for this resource may carry (among the server's `scopes`); default: all of those. */
  readonly scopes?: readonly string[];
  /** `"jwt"` (default): signed JWT access tokens; `"opaque"`: reference tokens read by introspection. */
  readonly format?: "jwt" | "opaque";
  /** Access token lifetime in seconds; default: the server's `accessTokenTtl`. */
  readonly accessTokenTtl?: number;
}

export interface AuthorizationServerOptions {
  /** The protected resources tokens may be issued for (more can be added with `addResource`). */
  readonly resources?: readonly ResourceOptions[];
  /**
   * Every scope the server knows besides `openid` and `offline_access` (listed in `scopes_supported`; a
   * client registering or asking for another is refused), with the scopes of `resources` added. A
   * resource added later may only use these. A resource that lists no scopes allows all of them.
   */
  readonly scopes?: readonly string[];
  /** Default access token lifetime in seconds. Default 300. */
  readonly accessTokenTtl?: number;
  /** When a refresh token is issued (see the file comment). Default `"always"`. */
  readonly refreshTokens?: "always" | "offline_access" | "never";
  /** Refresh token lifetime in seconds. Default 1 day. */
  readonly refreshTokenTtl?: number;
  /** Algorithm of the signing key made at start. Default ES256. */
  readonly signingAlg?: "ES256" | "RS256";
  /**
   * What an authorization request that names no `scope` asks for. oidc-provider refuses (access_denied)
   * an authorization that grants no scope at all; a server with default scopes grants these instead.
   * Default: none (the refusal).
   */
  readonly scopeWhenOmitted?: string;
  /**
   * Treat a client's registered `scope` as the most it may ask for (RFC 7591 allows it; oidc-provider
   * does it). Off by default: the registered `scope` is dropped, because an MCP client registers before
   * it knows the scopes it will step up to (SDK v2 registers the first challenge's scope), so a step-up
   * would be refused with `invalid_scope`.
   */
  readonly limitToRegisteredScope?: boolean;
  /** Make DPoP proofs at the token endpoint carry a server nonce (RFC 9449 §8). Default off. */
  readonly dpopNonce?: boolean;
  /**
   * Where the metadata document is served: `"both"` (default) at `/.well-known/oauth-authorization-server`
   * (RFC 8414) and `/.well-known/openid-configuration`; `"oauth"` or `"openid"` at one only (the other
   * is 404), to test a client's fallback.
   */
  readonly discovery?: "both" | "oauth" | "openid";
  /** Clients registered in advance (RFC 7591 metadata), for pre-registration tests. */
  readonly clients?: readonly Record<string, unknown>[];
}

export interface LogEntry {
  readonly clientId: string | undefined;
  readonly resource: string | string[] | undefined;
  readonly scope: string | undefined;
}

export interface AuthorizationServerLog {
  /** Clients registered dynamically: their id and the metadata they sent (no secret). */
  readonly registrations: { clientId: string; metadata: Record<string, unknown> }[];
  /** Authorization requests the server accepted, with the PKCE method asked. */
  readonly authorizations: (LogEntry & { codeChallengeMethod: string | undefined })[];
  /** Successful token requests: the grant type, and the scope and token type issued. */
  readonly grants: (LogEntry & { grantType: string; tokenType: string | undefined; refreshToken: boolean })[];
}

export interface AuthorizationServer {
  /** `http://127.0.0.1:<port>`, no trailing slash: the `iss` of everything it signs. */
  readonly issuer: string;
  readonly jwksUri: string;
  readonly introspectionEndpoint: string;
  /** A confidential client allowed to call introspection (`client_secret_basic` or `_post`). */
  readonly introspector: { readonly clientId: string; readonly clientSecret: string };
  /** The public signing key as a JWK (with `kid` and `alg`). */
  readonly publicJwk: JWK;
  readonly log: AuthorizationServerLog;
  readonly errors: Error[];
  /** Allows tokens for one more resource from now on; its scopes must be among the server's. */
  addResource(resource: ResourceOptions): void;
  /** The discovery document, as a client fetches it. */
  metadata(): Promise<Record<string, unknown>>;
  /**
   * Plays the user on `authorizationUrl`: follows redirects, signs in as `accountId` (default "alice"),
   * consents, and returns what the redirect to the client carries. An error redirect (`deny: true`, an
   * invalid request the provider sends back to the client) throws `AuthorizationDenied`.
   */
  authorize(authorizationUrl: string | URL, options?: AuthorizeOptions): Promise<AuthorizationResponse>;
  /** Like `authorize`, returning the redirect URL itself, error or not. */
  authorizeRedirect(authorizationUrl: string | URL, options?: AuthorizeOptions): Promise<URL>;
  /**
   * Signs `payload` with the server's key (header `alg`, `kid`, `typ: at+jwt` unless `header` says
   * otherwise). Defaults filled in: `iss` = issuer, `iat` = now, `exp` = now + 300, a random `jti`.
   */
  signJwt(payload: JWTPayload, header?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const alg = options.signingAlg ?? "ES256";
  const accessTokenTtl = options.accessTokenTtl ?? 300;
  const refreshTokens = options.refreshTokens ?? "always";
  const discovery = options.discovery ?? "both";
  // oidc-provider checks registered and requested scopes against a list fixed at construction.
  const scopes = new Set([
    ...(options.scopes ?? []),
    ...(options.resources ?? []).flatMap((r) => r.scopes ?? []),
  ]);
  const resources = new Map<string, ResourceOptions>();
  const addResource = (resource: ResourceOptions) => {
    new URL(resource.uri); // a resource indicator is an absolute URI
    const unknown = (resource.scopes ?? []).filter((scope) => !scopes.has(scope));
    if (unknown.length > 0) {
      throw new Error(
        `scopes ${unknown.join(", ")} are not among the server's: start it with them in \`scopes\``,
      );
    }
    resources.set(resource.uri, resource);
  };
  for (const resource of options.resources ?? []) addResource(resource);

  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = randomBytes(8).toString("hex");
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg, use: "sig" };
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  const introspector = { clientId: "introspector", clientSecret: randomBytes(24).toString("base64url") };

  // The listener is set once the port, and so the issuer, is known.
  let listener: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.destroy();
  const http = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve());
  });
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const getResourceServerInfo = async (
    _ctx: KoaContextWithOIDC,
    indicator: string,
  ): Promise<ResourceServerInfo> => {
    const resource = resources.get(indicator);
    if (resource === undefined) throw new errors.InvalidTarget();
    const format = resource.format ?? "jwt";
    return {
      scope: (resource.scopes ?? [...scopes]).join(" "),
      audience: resource.uri,
      accessTokenTTL: resource.accessTokenTtl ?? accessTokenTtl,
      accessTokenFormat: format,
      ...(format === "jwt" ? { jwt: { sign: { alg } } } : {}),
    };
  };

  const store = new MapStore();
  const provider = new Provider(issuer, {
    adapter: store.adapter,
    clients: [
      {
        client_id: introspector.clientId,
        client_secret: introspector.clientSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
      },
      ...(options.clients ?? []),
    ],
    clientDefaults: {
      grant_types: ["authorization_code"],
      id_token_signed_response_alg: alg,
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
    ...(options.limitToRegisteredScope
      ? {}
      : {
          // oidc-provider offers no switch for this; a custom-metadata hook sees the client's metadata
          // before it is checked, and drops the `scope` limit there.
          extraClientMetadata: {
            properties: ["x_scope_unlimited"],
            validator: (_ctx: unknown, _key: string, _value: unknown, metadata: Record<string, unknown>) => {
              delete metadata.scope;
            },
          },
        }),
    clientAuthMethods: ["client_secret_basic", "client_secret_post", "none", "private_key_jwt"],
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    jwks: { keys: [privateJwk] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true, initialAccessToken: false },
      introspection: {
        enabled: true,
        // Only confidential clients may introspect; what the token is for is theirs to check.
        allowedPolicy: async (_ctx: unknown, client: ClientView) => client.clientAuthMethod !== "none",
      },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      dPoP: {
        enabled: true,
        allowReplay: false,
        ...(options.dpopNonce
          ? { requireNonce: () => true, nonceSecret: randomBytes(32) }
          : { requireNonce: () => false }),
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => undefined,
        useGrantedResource: async () => true,
        getResourceServerInfo,
      },
    },
    pkce: { required: () => true },
    scopes: ["openid", "offline_access", ...scopes],
    responseTypes: ["code"],
    issueRefreshToken: async (_ctx: unknown, client: ClientView, code: { scopes: Set<string> }) =>
      refreshTokens !== "never" &&
      client.grantTypeAllowed("refresh_token") &&
      (refreshTokens === "always" || code.scopes.has("offline_access")),
    expiresWithSession: async () => false,
    rotateRefreshToken: () => true,
    ttl: {
      AccessToken: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL?: number } }) =>
        token.resourceServer?.accessTokenTTL ?? accessTokenTtl,
      AuthorizationCode: 60,
      ClientCredentials: () => accessTokenTtl,
      IdToken: 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 86400,
      RefreshToken: () => options.refreshTokenTtl ?? 86400,
    },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub }),
    }),
    interactions: {
      url: async (_ctx: unknown, interaction: { uid: string }) => `${INTERACTION_PREFIX}${interaction.uid}`,
    },
    renderError: async (ctx: { type: string; body: unknown }, out: Record<string, string>) => {
      ctx.type = "html";
      ctx.body = `<!doctype html><title>error</title><p>${escapeText(out.error)}: ${escapeText(out.error_description)}</p>`;
    },
  });

  const log: AuthorizationServerLog = { registrations: [], authorizations: [], grants: [] };
  const serverErrors: Error[] = [];
  const entry = (ctx: KoaContextWithOIDC) => ({
    clientId: ctx.oidc.client?.clientId,
    resource: ctx.oidc.params?.resource as string | string[] | undefined,
    scope: ctx.oidc.params?.scope as string | undefined,
  });
  provider.on("registration_create.success", (ctx: KoaContextWithOIDC, client: ClientView) => {
    const {
      client_secret: _secret,
      registration_access_token: _token,
      ...metadata
    } = (ctx.body ?? {}) as Record<string, unknown>;
    log.registrations.push({ clientId: client.clientId, metadata });
  });
  provider.on("authorization.accepted", (ctx: KoaContextWithOIDC) => {
    log.authorizations.push({
      ...entry(ctx),
      codeChallengeMethod: ctx.oidc.params?.code_challenge_method as string | undefined,
    });
  });
  provider.on("grant.success", (ctx: KoaContextWithOIDC) => {
    const body = (ctx.body ?? {}) as Record<string, unknown>;
    log.grants.push({
      ...entry(ctx),
      grantType: String(ctx.oidc.params?.grant_type),
      scope: body.scope as string | undefined,
      tokenType: body.token_type as string | undefined,
      refreshToken: typeof body.refresh_token === "string",
    });
  });
  provider.on("server_error", (_ctx: unknown, error: Error) => serverErrors.push(error));

  const callback = provider.callback();
  const hiddenDiscovery =
    discovery === "oauth" ? OPENID_DISCOVERY : discovery === "openid" ? OAUTH_DISCOVERY : undefined;
  listener = (req, res) => {
    if (req.url?.startsWith(INTERACTION_PREFIX)) return void handleInteraction(provider, req, res);
    if (hiddenDiscovery !== undefined && req.url?.split("?")[0] === hiddenDiscovery) {
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not_found"}');
      return;
    }
    if (options.scopeWhenOmitted !== undefined && req.method === "GET" && req.url?.startsWith("/auth?")) {
      const url = new URL(req.url, issuer);
      if (!url.searchParams.has("scope")) {
        url.searchParams.set("scope", options.scopeWhenOmitted);
        req.url = `${url.pathname}${url.search}`;
      }
    }
    callback(req, res);
  };

  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    introspector,
    publicJwk,
    log,
    errors: serverErrors,
    addResource,
    async metadata() {
      const response = await fetch(`${issuer}${discovery === "oauth" ? OAUTH_DISCOVERY : OPENID_DISCOVERY}`);
      return (await response.json()) as Record<string, unknown>;
    },
    authorize: (url, authorizeOptions) => authorize(issuer, url, authorizeOptions),
    authorizeRedirect: (url, authorizeOptions) => authorizeRedirect(issuer, url, authorizeOptions),
    async signJwt(payload, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        iss: issuer,
        iat: now,
        exp: now + 300,
        jti: randomBytes(12).toString("hex"),
        ...payload,
      })
        .setProtectedHeader({ alg, kid, typ: "at+jwt", ...header })
        .sign(privateKey);
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

const OAUTH_DISCOVERY = "/.well-known/oauth-authorization-server";
const OPENID_DISCOVERY = "/.well-known/openid-configuration";

function escapeText(text: string | undefined): string {
  return (text ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

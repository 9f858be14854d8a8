/**
 * The OAuth 2.1 client of an MCP server, as an `Authorizer` for the HTTP client transports: it adds the
 * access token to each request, and on the server's 401 discovers the authorization server, gets a
 * client identity, runs the authorization code flow with PKCE (the user-agent step is the caller's
 * `redirectToAuthorization`) and retries; on a 403 `insufficient_scope` it re-authorizes with the scopes
 * it had plus the challenged ones, never twice for the same set. Tokens and registrations live in a
 * `TokenStore` keyed by issuer, so a server that moves to another authorization server gets a fresh
 * registration there and never the old credentials.
 *
 *   const authorizer = new OAuthClient({ serverUrl, redirectUri, redirectToAuthorization: openBrowser });
 *   const transport = await connectHttp(serverUrl, { authorizer });
 */

import type { AuthorizedRequest, Authorizer } from "../http-client/authorizer.js";
import { authorizationUrl } from "./authorization-request.js";
import {
  type AuthorizationResponse,
  acceptAuthorizationResponse,
  authorizationResponseFrom,
} from "./authorization-response.js";
import { responseChallenge } from "./challenge-parse.js";
import {
  BUILT_IN_CLIENT_AUTHENTICATION,
  type ClientAuthentication,
  chooseClientAuthentication,
} from "./client-auth.js";
import { type Discovery, discover } from "./discovery.js";
import { OAuthClientError } from "./errors.js";
import { assertS256, createPkce, randomState } from "./pkce.js";
import { canonicalResource } from "./protected-resource.js";
import { type ClientMetadata, clientFor, type PreRegisteredClient } from "./registration.js";
import { joinScope, selectScopes, splitScope, stepUpScopes } from "./scope.js";
import type { SenderConstraint } from "./sender-constraint.js";
import { requestToken } from "./token-request.js";
import {
  MemoryTokenStore,
  type StoredClient,
  type StoredTokens,
  type TokenStore,
  type TokenStoreKey,
} from "./token-store.js";

/** What a grant other than the authorization code gets to obtain tokens with. */
export interface GrantContext {
  readonly issuer: string;
  readonly server: Discovery["server"];
  /** The `resource` to send (RFC 8707), undefined for a 2025-03-26 server. */
  readonly resource?: string;
  /** The scopes chosen for this request, space-separated; undefined to omit `scope`. */
  readonly scope?: string;
  readonly client: StoredClient;
  /** POSTs a grant to the token endpoint with the client's authentication, `resource` and `scope` added. */
  requestToken(grant: Record<string, string | undefined>): Promise<StoredTokens>;
}

/** Obtains tokens without the user (client credentials, JWT bearer, token exchange, …). */
export type Grant = (context: GrantContext) => Promise<StoredTokens>;

export interface OAuthClientOptions {
  /** The MCP endpoint the tokens are for. */
  readonly serverUrl: string | URL;
  /** Where the authorization server sends the user back (a loopback URL for a CLI, a page for a web app). */
  readonly redirectUri: string;
  /**
   * Sends the user to `url` (opens a browser, navigates, …) and resolves with what came back to
   * `redirectUri`: its parameters, or the URL itself. State and issuer are checked here, not there.
   */
  readonly redirectToAuthorization?: (url: URL) => Promise<AuthorizationResponse | URL>;
  /** Registration metadata; `redirect_uris` defaults to `[redirectUri]`, grant types include refresh_token. */
  readonly clientMetadata?: Partial<ClientMetadata>;
  /** An HTTPS URL serving the client's metadata document, used as its `client_id` where supported. */
  readonly clientMetadataUrl?: string;
  /**
   * Clients registered out of band. One without `issuer` goes to the first authorization server the
   * resource names, and to no other afterwards: credentials are never offered to a second issuer.
   */
  readonly preRegistered?: ReadonlyArray<PreRegisteredClient | Omit<PreRegisteredClient, "issuer">>;
  /** Tokens and registrations; in memory by default. */
  readonly store?: TokenStore;
  /** Ask for `offline_access` when the authorization server lists it (default true: refresh tokens). */
  readonly offlineAccess?: boolean;
  /** Token endpoint authentication methods beyond the built-in ones, by method name. */
  readonly clientAuthentication?: Readonly<Record<string, ClientAuthentication>>;
  /** Replaces the authorization code flow (a machine client). */
  readonly grant?: Grant;
  /** Sender-constrained tokens (DPoP): proofs on token and MCP requests; bearer tokens without it. */
  readonly senderConstraint?: SenderConstraint;
  /** Makes the metadata, registration and token requests; the global fetch by default. */
  readonly fetch?: typeof fetch;
  /** Sent as MCP-Protocol-Version with metadata requests. */
  readonly protocolVersion?: string;
  /** Refresh this many seconds before `expires_at` (default 30; at most half the lifetime of a token it got). */
  readonly refreshLeewaySeconds?: number;
}

interface Session {
  readonly discovery: Discovery;
  readonly key: TokenStoreKey;
  readonly resource?: string;
  tokens?: StoredTokens;
  client?: StoredClient;
  /** Scope sets already asked for by step-up: a set is never asked for twice. */
  readonly steppedUp: Set<string>;
}

const bearer = (tokens: StoredTokens) => ({ authorization: `Bearer ${tokens.access_token}` });

export class OAuthClient implements Authorizer {
  readonly #options: OAuthClientOptions;
  readonly #store: TokenStore;
  readonly #serverUrl: URL;
  readonly #auth: Readonly<Record<string, ClientAuthentication>>;
  #session: Session | undefined;
  /** One login or refresh at a time; concurrent 401s wait for it and retry. */
  #busy: Promise<unknown> = Promise.resolve();
  /** The token each in-flight request carried, to tell a stale refusal from a fresh one. */
  readonly #sent = new WeakMap<AuthorizedRequest, string | undefined>();
  /** Requests that already led to a new token: a second 401 for one of them is given to the caller. */
  readonly #renewed = new WeakSet<AuthorizedRequest>();
  /** The issuer an issuer-less pre-registered client was first used with. */
  #unboundIssuer: string | undefined;
  /** When each token this client got arrived (seconds): its lifetime bounds the leeway. */
  readonly #received = new WeakMap<StoredTokens, number>();

  constructor(options: OAuthClientOptions) {
    const cimd = options.clientMetadataUrl;
    // A Client ID Metadata Document URL is an https URL with a path (the CIMD draft): anything else is a typo.
    if (cimd !== undefined && !/^https:\/\/[^/]+\/./.test(cimd))
      throw new TypeError(`clientMetadataUrl must be an https URL with a path, not ${JSON.stringify(cimd)}`);
    this.#options = options;
    this.#store = options.store ?? new MemoryTokenStore();
    this.#serverUrl = new URL(options.serverUrl);
    this.#auth = { ...BUILT_IN_CLIENT_AUTHENTICATION, ...options.clientAuthentication };
  }

  /** The issuer of the current tokens, once discovered. */
  get issuer(): string | undefined {
    return this.#session?.discovery.issuer;
  }

  async headers(request: AuthorizedRequest): Promise<Record<string, string>> {
    await this.#busy;
    const due = (session: Session | undefined): session is Session =>
      session?.tokens?.refresh_token !== undefined && this.#expiring(session.tokens);
    // Checked again in turn: of requests that found the token expiring together, one refreshes.
    if (due(this.#session))
      await this.#serialized(async () => {
        const session = this.#session;
        // A refused refresh drops the tokens: the request goes without, and its 401 starts a login.
        if (due(session)) await this.#refresh(session).catch(() => false);
      });
    const tokens = this.#session?.tokens;
    this.#sent.set(request, tokens?.access_token);
    if (!tokens) return {};
    return this.#options.senderConstraint
      ? this.#options.senderConstraint.present(tokens, request)
      : bearer(tokens);
  }

  challenged(response: Response, request: AuthorizedRequest): Promise<boolean> {
    return this.#serialized(() => this.#challenged(response, request));
  }

  /** Forgets the tokens for the current server (the registration stays: it is the issuer's). */
  async logout(): Promise<void> {
    const session = this.#session;
    if (!session) return;
    session.tokens = undefined;
    await this.#store.setTokens(session.key, undefined);
  }

  #serialized<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#busy.then(step, step);
    this.#busy = run.catch(() => {});
    return run;
  }

  #expiring(tokens: StoredTokens): boolean {
    if (tokens.expires_at === undefined) return false;
    const received = this.#received.get(tokens);
    // A token living less than twice the leeway would otherwise be refreshed before every request.
    const halfLife = received === undefined ? Number.POSITIVE_INFINITY : (tokens.expires_at - received) / 2;
    const leeway = Math.min(this.#options.refreshLeewaySeconds ?? 30, halfLife);
    return tokens.expires_at - leeway <= Date.now() / 1000;
  }

  async #challenged(response: Response, request: AuthorizedRequest): Promise<boolean> {
    if (await this.#options.senderConstraint?.challenged?.(response, request)) return true;
    const sent = this.#sent.get(request);
    // Another request renewed the token while this one was refused with the old one: just retry.
    if (this.#session?.tokens && this.#session.tokens.access_token !== sent) return true;
    const challenge = responseChallenge(response);
    if (response.status === 403) {
      if (challenge?.error !== "insufficient_scope" || !this.#session?.tokens) return false;
      return this.#stepUp(this.#session, challenge.scope);
    }
    if (response.status !== 401) return false;

    const discovery = await discover(this.#serverUrl, challenge?.resourceMetadata, this.#discoveryOptions());
    const session = await this.#sessionFor(discovery);
    if (session.tokens && session.tokens.access_token !== sent) return true;
    // A server that refuses the token this request just got will refuse the next one too: no login loop.
    if (this.#renewed.has(request)) return false;
    this.#renewed.add(request);
    if (session.tokens?.refresh_token && (await this.#refresh(session))) return true;
    const scopes = selectScopes({
      challenged: challenge?.scope,
      resourceScopes: discovery.resource?.metadata.scopes_supported,
      serverScopes: discovery.server.scopes_supported,
      offlineAccess: this.#options.offlineAccess ?? true,
    });
    await this.#authorize(session, scopes);
    return true;
  }

  #discoveryOptions() {
    return {
      ...(this.#options.fetch && { fetch: this.#options.fetch }),
      ...(this.#options.protocolVersion && { protocolVersion: this.#options.protocolVersion }),
    };
  }

  /** The session for what discovery found: the current one if the issuer and resource are the same. */
  async #sessionFor(discovery: Discovery): Promise<Session> {
    const resource = discovery.resource?.metadata.resource;
    const key = { issuer: discovery.issuer, resource: resource ?? canonicalResource(this.#serverUrl) };
    const current = this.#session;
    if (current && current.key.issuer === key.issuer && current.key.resource === key.resource) return current;
    const session: Session = {
      discovery,
      key,
      ...(resource !== undefined && { resource }),
      steppedUp: new Set(),
    };
    const stored = await this.#store.getTokens(key);
    if (stored && (!this.#expiring(stored) || stored.refresh_token)) session.tokens = stored;
    this.#session = session;
    return session;
  }

  async #stepUp(session: Session, challenged: string | undefined): Promise<boolean> {
    const scopes = stepUpScopes(splitScope(session.tokens?.scope), challenged);
    if (!scopes) return false;
    const id = [...scopes].sort().join(" ");
    if (session.steppedUp.has(id)) return false;
    session.steppedUp.add(id);
    await this.#authorize(session, scopes);
    return true;
  }

  async #client(session: Session): Promise<StoredClient> {
    if (session.client) return session.client;
    const { issuer, server } = session.discovery;
    this.#unboundIssuer ??= issuer;
    const preRegistered = (this.#options.preRegistered ?? []).flatMap((c) =>
      "issuer" in c && c.issuer !== undefined
        ? [c as PreRegisteredClient]
        : this.#unboundIssuer === issuer
          ? [{ ...c, issuer }]
          : [],
    );
    session.client = await clientFor(issuer, server, {
      metadata: {
        redirect_uris: [this.#options.redirectUri],
        ...this.#options.clientMetadata,
      },
      ...(this.#options.clientMetadataUrl && { clientMetadataUrl: this.#options.clientMetadataUrl }),
      preRegistered,
      store: this.#store,
      ...(this.#options.fetch && { fetch: this.#options.fetch }),
    });
    return session.client;
  }

  /** A token request at the session's server, authenticated as its client. */
  async #requestToken(session: Session, grant: Record<string, string | undefined>, scope?: string) {
    const client = await this.#client(session);
    const { issuer, server } = session.discovery;
    const method = chooseClientAuthentication(client, server, this.#auth);
    return requestToken({
      grant,
      ...(session.resource !== undefined && { resource: session.resource }),
      ...(scope !== undefined && { scope }),
      authenticate: this.#auth[method]!,
      context: { client, issuer, tokenEndpoint: server.token_endpoint, server },
      ...(this.#options.fetch && { fetch: this.#options.fetch }),
      ...(this.#options.senderConstraint && { constraint: this.#options.senderConstraint }),
    });
  }

  /**
   * `invalid_client` from the token endpoint: the server no longer knows the registration (a DCR client it
   * purged). The stored one is dropped, so the next login registers anew instead of failing forever.
   */
  async #forgetClientIfRefused(session: Session, error: OAuthClientError): Promise<void> {
    if (error.code !== "invalid_client" || !session.client) return;
    const { issuer } = session.discovery;
    if ((await this.#store.getClient(issuer))?.client_id === session.client.client_id)
      await this.#store.setClient(issuer, undefined);
    session.client = undefined;
  }

  async #keep(session: Session, tokens: StoredTokens): Promise<void> {
    this.#received.set(tokens, Date.now() / 1000);
    session.tokens = tokens;
    await this.#store.setTokens(session.key, tokens);
  }

  /** True once refreshed; false (tokens dropped) when the server refused the refresh token. */
  async #refresh(session: Session): Promise<boolean> {
    const old = session.tokens;
    if (!old?.refresh_token) return false;
    try {
      const tokens = await this.#requestToken(session, {
        grant_type: "refresh_token",
        refresh_token: old.refresh_token,
      });
      await this.#keep(session, {
        ...tokens,
        // RFC 6749 §6: the old refresh token stays valid when no new one is issued; the scope is unchanged.
        ...(tokens.refresh_token === undefined && { refresh_token: old.refresh_token }),
        ...(tokens.scope === undefined && old.scope !== undefined && { scope: old.scope }),
      });
      return true;
    } catch (error) {
      if (!(error instanceof OAuthClientError)) throw error;
      await this.#forgetClientIfRefused(session, error);
      session.tokens = undefined;
      await this.#store.setTokens(session.key, undefined);
      return false;
    }
  }

  async #authorize(session: Session, scopes: readonly string[]): Promise<void> {
    const scope = joinScope(scopes);
    const { issuer, server } = session.discovery;
    if (this.#options.grant) {
      const client = await this.#client(session);
      const tokens = await this.#options.grant({
        issuer,
        server,
        ...(session.resource !== undefined && { resource: session.resource }),
        ...(scope !== undefined && { scope }),
        client,
        requestToken: (grant) => this.#requestToken(session, grant, scope),
      });
      await this.#keep(session, tokens);
      return;
    }
    const redirect = this.#options.redirectToAuthorization;
    if (!redirect)
      throw new OAuthClientError(
        "authorization_failed",
        `${this.#serverUrl.href} needs a login, and this client has no redirectToAuthorization`,
      );
    if (!server.authorization_endpoint)
      throw new OAuthClientError(
        "discovery_failed",
        `the authorization server ${issuer} has no authorization_endpoint`,
      );
    assertS256(server, issuer);
    const client = await this.#client(session);
    const pkce = await createPkce();
    const state = randomState();
    const url = authorizationUrl({
      authorizationEndpoint: server.authorization_endpoint,
      clientId: client.client_id,
      redirectUri: this.#options.redirectUri,
      pkce,
      state,
      ...(scope !== undefined && { scope }),
      ...(session.resource !== undefined && { resource: session.resource }),
    });
    const result = await redirect(url);
    const code = acceptAuthorizationResponse(
      result instanceof URL ? authorizationResponseFrom(result) : result,
      {
        state,
        issuer: server.issuer,
        issSupported: server.authorization_response_iss_parameter_supported === true,
      },
    );
    const tokens = await this.#requestToken(session, {
      grant_type: "authorization_code",
      code,
      code_verifier: pkce.verifier,
      redirect_uri: this.#options.redirectUri,
    }).catch(async (error: unknown) => {
      if (error instanceof OAuthClientError) await this.#forgetClientIfRefused(session, error);
      throw error;
    });
    await this.#keep(
      session,
      tokens.scope === undefined && scope !== undefined ? { ...tokens, scope } : tokens,
    );
  }
}

/**
 * The official SDK v2 client's OAuth side for tests: an `OAuthClientProvider` (`@modelcontextprotocol/
 * client`) kept in memory, whose "browser" is the test authorization server's `authorizeRedirect`. The SDK
 * registers (DCR), builds the authorization URL with PKCE S256 and `resource`, and calls
 * `redirectToAuthorization`; `finish(transport)` then waits for the redirect the provider answered with,
 * checks `state` (the SDK leaves that to the host) and hands the callback parameters to the transport's
 * `finishAuth`, which redeems the code (checking `iss`, RFC 9207).
 *
 * ```ts
 * const login = new SdkOAuthClient(as);
 * const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: login });
 * await connectWithLogin(client, login, () => new StreamableHTTPClientTransport(url, { authProvider: login }));
 * ```
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import type {
  Client,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { UnauthorizedError } from "@modelcontextprotocol/client";
import type { AuthorizationServer } from "./oidc-provider.js";

export interface SdkOAuthClientOptions {
  /** The account the user signs in as. Default "alice". */
  readonly accountId?: string;
  /** Where the authorization server redirects; nothing listens there, the redirect is read, not followed. */
  readonly redirectUrl?: string;
}

export class SdkOAuthClient implements OAuthClientProvider {
  readonly redirectUrl: string;
  /** Every authorization URL the SDK opened, in order. */
  readonly authorizationUrls: URL[] = [];
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = "";
  #state = "";
  #pending: Promise<URL> | undefined;
  #discovery: OAuthDiscoveryState | undefined;
  readonly #as: AuthorizationServer;
  readonly #accountId: string;

  constructor(as: AuthorizationServer, options: SdkOAuthClientOptions = {}) {
    this.#as = as;
    this.#accountId = options.accountId ?? "alice";
    this.redirectUrl = options.redirectUrl ?? "http://127.0.0.1:8976/callback";
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "SDK v2 test client",
      redirect_uris: [this.redirectUrl],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.#state = randomBytes(16).toString("base64url");
    return this.#state;
  }

  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }
  discoveryState() {
    return this.#discovery;
  }

  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    const pending = this.#as.authorizeRedirect(url, { accountId: this.#accountId });
    pending.catch(() => {}); // awaited by finish(); a failure surfaces there
    this.#pending = pending;
  }

  /** Completes the login the SDK started: checks `state`, then `transport.finishAuth`. */
  async finish(transport: StreamableHTTPClientTransport): Promise<void> {
    const pending = this.#pending;
    if (pending === undefined) throw new Error("no authorization was started");
    this.#pending = undefined;
    const redirect = await pending;
    const state = Buffer.from(redirect.searchParams.get("state") ?? "");
    const expected = Buffer.from(this.#state);
    if (state.length !== expected.length || !timingSafeEqual(state, expected)) {
      throw new Error("the authorization response's state is not the one sent");
    }
    await transport.finishAuth(redirect.searchParams);
  }
}

/**
 * Runs `attempt`; when the SDK stops for a login (`UnauthorizedError`: the first login, or a step-up after
 * a 403 `insufficient_scope`), completes it through `transport` and runs `attempt` once more.
 */
export async function afterLogin<T>(
  login: SdkOAuthClient,
  transport: StreamableHTTPClientTransport,
  attempt: () => Promise<T>,
): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await login.finish(transport);
    return attempt();
  }
}

/** Connects `client`, logging in first when the server asks for it (a transport is used once). */
export async function connectWithLogin(
  client: Client,
  login: SdkOAuthClient,
  makeTransport: () => StreamableHTTPClientTransport,
): Promise<void> {
  const first = makeTransport();
  try {
    await client.connect(first);
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
    await login.finish(first);
    await client.connect(makeTransport());
  }
}

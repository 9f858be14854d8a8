/**
 * Where an OAuth client keeps what it obtained, keyed by the authorization server's issuer and the
 * protected resource: tokens, and the client registration it got from that issuer (credentials are bound
 * to the issuer that issued them and must not be reused with another). In memory by default; a CLI uses
 * the file store in `node/`.
 */

export interface StoredTokens {
  readonly access_token: string;
  readonly token_type: string;
  readonly refresh_token?: string;
  /** Seconds since the epoch when the access token expires, computed from `expires_in` on receipt. */
  readonly expires_at?: number;
  readonly scope?: string;
}

export interface StoredClient {
  readonly client_id: string;
  readonly client_secret?: string;
  /** Seconds since the epoch; absent when the secret does not expire. */
  readonly client_secret_expires_at?: number;
  readonly token_endpoint_auth_method?: string;
}

/** One key per resource and issuer: what was obtained from `issuer` for use at `resource`. */
export interface TokenStoreKey {
  readonly issuer: string;
  readonly resource: string;
}

export interface TokenStore {
  getTokens(key: TokenStoreKey): Promise<StoredTokens | undefined>;
  setTokens(key: TokenStoreKey, tokens: StoredTokens | undefined): Promise<void>;
  /** The registration with `issuer`; clients are not per resource. */
  getClient(issuer: string): Promise<StoredClient | undefined>;
  setClient(issuer: string, client: StoredClient | undefined): Promise<void>;
}

const tokenKey = (key: TokenStoreKey) => `${key.issuer}\n${key.resource}`;

/** Lives as long as the process: the default. */
export class MemoryTokenStore implements TokenStore {
  readonly #tokens = new Map<string, StoredTokens>();
  readonly #clients = new Map<string, StoredClient>();

  async getTokens(key: TokenStoreKey): Promise<StoredTokens | undefined> {
    return this.#tokens.get(tokenKey(key));
  }
  async setTokens(key: TokenStoreKey, tokens: StoredTokens | undefined): Promise<void> {
    if (tokens === undefined) this.#tokens.delete(tokenKey(key));
    else this.#tokens.set(tokenKey(key), tokens);
  }
  async getClient(issuer: string): Promise<StoredClient | undefined> {
    return this.#clients.get(issuer);
  }
  async setClient(issuer: string, client: StoredClient | undefined): Promise<void> {
    if (client === undefined) this.#clients.delete(issuer);
    else this.#clients.set(issuer, client);
  }
}

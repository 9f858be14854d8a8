/**
 * Getting a client identity at an authorization server, in the spec's order: a client registered with
 * that issuer beforehand (or earlier, kept in the store), a Client ID Metadata Document URL when the
 * server advertises support for them, else Dynamic Client Registration (RFC 7591). Credentials belong to
 * the issuer that issued them: they are stored under it and never offered to another.
 */

import { readJson, requestDeadline } from "./bounded-json.js";
import { OAuthClientError } from "./errors.js";
import type { AuthorizationServerMetadata } from "./metadata.js";
import type { StoredClient, TokenStore } from "./token-store.js";

/** What the client says about itself when it registers (RFC 7591 §2); also the CIMD document's content. */
export interface ClientMetadata {
  readonly client_name?: string;
  readonly redirect_uris: readonly string[];
  readonly grant_types?: readonly string[];
  readonly response_types?: readonly string[];
  readonly token_endpoint_auth_method?: string;
  /** "native" for CLIs and desktop apps (loopback redirects), "web" for browser apps. */
  readonly application_type?: "native" | "web";
  readonly scope?: string;
  readonly client_uri?: string;
  readonly logo_uri?: string;
  readonly software_id?: string;
  readonly software_version?: string;
  readonly [field: string]: unknown;
}

/** A client registered out of band, for one issuer. */
export interface PreRegisteredClient extends StoredClient {
  readonly issuer: string;
}

export interface RegistrationOptions {
  readonly metadata: ClientMetadata;
  /** An HTTPS URL serving `metadata` as a Client ID Metadata Document: used as `client_id` where supported. */
  readonly clientMetadataUrl?: string;
  readonly preRegistered?: readonly PreRegisteredClient[];
  readonly store: TokenStore;
  readonly fetch?: typeof fetch;
}

/**
 * SEP-837 (2026-07-28): a registering client states its application type. A loopback or custom-scheme
 * redirect is a native app's (CLI, desktop); an https page elsewhere is a web app's.
 */
export function applicationTypeOf(redirectUri: string): "native" | "web" {
  const url = new URL(redirectUri);
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  return url.protocol === "https:" && !loopback ? "web" : "native";
}

/** `refresh_token` beside `authorization_code` unless the caller chose the grant types; the application type. */
export const withDefaultGrants = (metadata: ClientMetadata): ClientMetadata => ({
  ...metadata,
  ...(metadata.application_type === undefined &&
    metadata.redirect_uris[0] !== undefined && {
      application_type: applicationTypeOf(metadata.redirect_uris[0]),
    }),
  grant_types: metadata.grant_types ?? ["authorization_code", "refresh_token"],
  response_types: metadata.response_types ?? ["code"],
});

/**
 * The method to ask for at registration: `none` (a public client with PKCE) when the server takes it,
 * else a secret method it lists; unset when the server lists none (it decides).
 */
function registrationAuthMethod(metadata: ClientMetadata, server: AuthorizationServerMetadata) {
  if (metadata.token_endpoint_auth_method) return metadata.token_endpoint_auth_method;
  const supported = server.token_endpoint_auth_methods_supported;
  if (!supported) return undefined;
  return ["none", "client_secret_basic", "client_secret_post"].find((m) => supported.includes(m));
}

/** RFC 7591 §3: POST the metadata, take the client information. */
export async function registerClient(
  endpoint: string,
  metadata: ClientMetadata,
  server: AuthorizationServerMetadata,
  fetchFn: typeof fetch = fetch,
): Promise<StoredClient> {
  const method = registrationAuthMethod(metadata, server);
  const body = { ...withDefaultGrants(metadata), ...(method && { token_endpoint_auth_method: method }) };
  let response: Response;
  try {
    response = await fetchFn(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(body),
      redirect: "error",
      signal: requestDeadline(),
    });
  } catch (error) {
    throw new OAuthClientError(
      "registration_unavailable",
      `dynamic client registration at ${endpoint} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const doc: unknown = await readJson(response, `the registration response of ${endpoint}`).catch((error) => {
    throw new OAuthClientError(
      "registration_unavailable",
      error instanceof Error ? error.message : String(error),
    );
  });
  const d = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
  if (!response.ok || typeof d.client_id !== "string" || d.client_id === "") {
    const why = typeof d.error === "string" ? ` ${d.error}` : "";
    throw new OAuthClientError(
      typeof d.error === "string" ? d.error : "registration_unavailable",
      `dynamic client registration at ${endpoint} answered ${response.status}${why}${response.ok ? " without a client_id" : ""}`,
      response.status,
    );
  }
  const secret = typeof d.client_secret === "string" ? d.client_secret : undefined;
  const registered =
    typeof d.token_endpoint_auth_method === "string" ? d.token_endpoint_auth_method : undefined;
  return {
    client_id: d.client_id,
    ...(secret !== undefined && { client_secret: secret }),
    ...(typeof d.client_secret_expires_at === "number" &&
      d.client_secret_expires_at > 0 && { client_secret_expires_at: d.client_secret_expires_at }),
    // RFC 7591 §2: the default method is client_secret_basic; a client without a secret is public.
    token_endpoint_auth_method:
      registered ?? method ?? (secret !== undefined ? "client_secret_basic" : "none"),
  };
}

const expired = (client: StoredClient, now: number) =>
  client.client_secret_expires_at !== undefined && client.client_secret_expires_at <= now / 1000;

/**
 * The client identity to use with `issuer`. Pre-registered first (the spec's priority), then one stored
 * for this issuer, then a CIMD URL, then DCR (stored under the issuer); `registration_unavailable` when
 * none applies, naming what the user can do.
 */
export async function clientFor(
  issuer: string,
  server: AuthorizationServerMetadata,
  options: RegistrationOptions,
): Promise<StoredClient> {
  const pre = options.preRegistered?.find((c) => c.issuer === issuer);
  if (pre) {
    const { issuer: _issuer, ...client } = pre;
    return client;
  }
  const stored = await options.store.getClient(issuer);
  if (stored && !expired(stored, Date.now())) return stored;
  if (options.clientMetadataUrl && server.client_id_metadata_document_supported === true)
    return { client_id: options.clientMetadataUrl, token_endpoint_auth_method: "none" };
  if (server.registration_endpoint) {
    const client = await registerClient(
      server.registration_endpoint,
      options.metadata,
      server,
      options.fetch,
    );
    await options.store.setClient(issuer, client);
    return client;
  }
  throw new OAuthClientError(
    "registration_unavailable",
    `the authorization server ${issuer} offers no dynamic client registration${options.clientMetadataUrl ? " and no client ID metadata documents" : ""}: register a client with it and pass it as preRegistered`,
  );
}

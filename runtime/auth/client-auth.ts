/**
 * How the client authenticates to the token endpoint (RFC 6749 §2.3, OAuth 2.1 §2.4): a hook per method
 * name that adds headers and body fields to a token request. `client_secret_basic`, `client_secret_post`
 * and `none` are built in; more (`private_key_jwt`, …) are passed in `OAuthClientOptions.clientAuthentication`
 * under their method name and are chosen like the built-in ones.
 */

import { toBase64, utf8Bytes } from "../util/base64.js";
import type { AuthorizationServerMetadata } from "./metadata.js";
import type { StoredClient } from "./token-store.js";

export interface ClientAuthenticationContext {
  readonly client: StoredClient;
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly server: AuthorizationServerMetadata;
}

/** The request's parts a method may add to: headers, and the form body (already holding the grant). */
export interface TokenRequestParts {
  readonly headers: Headers;
  readonly body: URLSearchParams;
}

export type ClientAuthentication = (
  parts: TokenRequestParts,
  context: ClientAuthenticationContext,
) => void | Promise<void>;

/** RFC 6749 §2.3.1: each part form-encoded before joining, so a ':' in a client id survives. */
const formEncode = (text: string) => encodeURIComponent(text).replace(/%20/g, "+");

export const BUILT_IN_CLIENT_AUTHENTICATION: Readonly<Record<string, ClientAuthentication>> = {
  client_secret_basic: ({ headers }, { client }) => {
    const credentials = `${formEncode(client.client_id)}:${formEncode(client.client_secret ?? "")}`;
    headers.set("authorization", `Basic ${toBase64(utf8Bytes(credentials))}`);
  },
  client_secret_post: ({ body }, { client }) => {
    body.set("client_id", client.client_id);
    body.set("client_secret", client.client_secret ?? "");
  },
  none: ({ body }, { client }) => {
    body.set("client_id", client.client_id);
  },
};

/**
 * The method to use with `client` at this server: the one it was registered with when the server accepts
 * it (or lists nothing), else the first the server lists that the client can do (a secret for the secret
 * methods, a hook for others), else `none`.
 */
export function chooseClientAuthentication(
  client: StoredClient,
  server: AuthorizationServerMetadata,
  available: Readonly<Record<string, ClientAuthentication>>,
): string {
  // RFC 8414 §2: an omitted list means client_secret_basic.
  const supported = server.token_endpoint_auth_methods_supported;
  const feasible = (method: string) =>
    Object.hasOwn(available, method) &&
    (method === "none" || !method.startsWith("client_secret") || client.client_secret !== undefined);
  const registered = client.token_endpoint_auth_method;
  if (registered && feasible(registered) && (!supported || supported.includes(registered))) return registered;
  const order = supported ?? ["client_secret_basic"];
  const pick = order.find(feasible);
  if (pick) return pick;
  return client.client_secret !== undefined ? "client_secret_basic" : "none";
}

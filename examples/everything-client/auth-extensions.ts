/**
 * The suite's authorization extension scenarios, as options of the everything-client's OAuthClient: a
 * grant instead of the browser login, a client authentication method, a DPoP key. What each needs
 * (credentials, keys, tokens) arrives in MCP_CONFORMANCE_CONTEXT.
 */

import {
  clientCredentials,
  DpopConstraint,
  enterpriseManaged,
  jwtBearer,
  type OAuthClientOptions,
  privateKeyJwt,
} from "@mcp-codegen/runtime/auth";

type Context = Readonly<Record<string, unknown>>;

/** A string the scenario must have given, or a clear error naming it. */
function given(context: Context, field: string): string {
  const value = context[field];
  if (typeof value !== "string" || value === "")
    throw new Error(`MCP_CONFORMANCE_CONTEXT has no ${field} (a string) for this scenario`);
  return value;
}

export const EXTENSION_SCENARIO_OPTIONS: Record<string, (context: Context) => Partial<OAuthClientOptions>> = {
  // SEP-1046: the client's own token; its key signs a private_key_jwt assertion for the issuer.
  "auth/client-credentials-jwt": (context) => ({
    grant: clientCredentials(),
    clientAuthentication: {
      private_key_jwt: privateKeyJwt(given(context, "private_key_pem"), given(context, "signing_algorithm")),
    },
  }),
  // SEP-1046 with the pre-registered secret (client_secret_basic, the server's one method).
  "auth/client-credentials-basic": () => ({ grant: clientCredentials() }),
  // SEP-990: ID token → ID-JAG at the identity provider, then the ID-JAG as a JWT bearer grant.
  "auth/enterprise-managed-authorization": (context) => ({
    grant: enterpriseManaged({
      issuer: given(context, "idp_issuer"),
      tokenEndpoint: given(context, "idp_token_endpoint"),
      clientId: given(context, "idp_client_id"),
      idToken: given(context, "idp_id_token"),
    }),
  }),
  // SEP-1933: the workload's JWT is the grant; a refusal ends the run (no retry, no other grant).
  "auth/wif-jwt-bearer": (context) => ({ grant: jwtBearer(given(context, "valid_jwt")) }),
  // SEP-1932: the browser login, with DPoP-bound tokens and a proof on every request.
  "auth/dpop": () => ({ senderConstraint: new DpopConstraint() }),
  "auth/dpop-nonce": () => ({ senderConstraint: new DpopConstraint() }),
};

/**
 * The everything-client's `auth/*` scenarios: an OAuthClient as the transport's authorizer. The suite's
 * authorization server answers the authorization request with an immediate redirect carrying the code,
 * so "the user" here is a fetch that does not follow redirects and hands the Location back; a real CLI
 * opens a browser and waits on a loopback redirect. Data the scenario gives the client (pre-registered
 * credentials, keys) arrives in MCP_CONFORMANCE_CONTEXT.
 */

import { OAuthClient, type OAuthClientOptions, type PreRegisteredClient } from "@mcp-codegen/runtime/auth";
import type { Authorizer } from "@mcp-codegen/runtime/http-client";
import { EXTENSION_SCENARIO_OPTIONS } from "./auth-extensions.js";
import { log } from "./handlers.js";

/** The URL the suite expects as a Client ID Metadata Document client_id (auth/basic-cimd). */
export const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";
/** Never listened on: the redirect is read from the authorization server's Location header. */
const REDIRECT_URI = "http://localhost:3000/callback";

export type AuthContext = Readonly<Record<string, unknown>>;

/**
 * Scenario-specific options, by scenario name, for grants and client authentication beyond the
 * authorization code flow (the suite's extension scenarios). A scenario not listed runs the code flow.
 */
export const AUTH_SCENARIO_OPTIONS: Record<string, (context: AuthContext) => Partial<OAuthClientOptions>> = {
  ...EXTENSION_SCENARIO_OPTIONS,
};

export function authContext(): AuthContext {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!raw) return {};
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== "object" || parsed === null)
    throw new Error("MCP_CONFORMANCE_CONTEXT is not a JSON object");
  return parsed as AuthContext;
}

/** Plays the user: requests the authorization URL and returns where the server redirects. */
async function followAuthorization(url: URL): Promise<URL> {
  const response = await fetch(url, { redirect: "manual" });
  await response.body?.cancel().catch(() => {});
  const location = response.headers.get("location");
  if (response.status < 300 || response.status >= 400 || !location)
    throw new Error(`the authorization endpoint answered ${response.status} without a redirect`);
  return new URL(location, url);
}

/** Pre-registered credentials from the context (auth/pre-registration), bound to its issuer when given. */
function preRegistered(
  context: AuthContext,
): Array<PreRegisteredClient | Omit<PreRegisteredClient, "issuer">> {
  const { client_id, client_secret, issuer } = context;
  if (typeof client_id !== "string") return [];
  return [
    {
      client_id,
      ...(typeof client_secret === "string" && { client_secret }),
      ...(typeof issuer === "string" && { issuer }),
    },
  ];
}

export function authorizerFor(
  scenario: string,
  serverUrl: string,
  protocolVersion: string | undefined,
): Authorizer {
  const context = authContext();
  const extra = Object.hasOwn(AUTH_SCENARIO_OPTIONS, scenario)
    ? AUTH_SCENARIO_OPTIONS[scenario]!(context)
    : {};
  return new OAuthClient({
    serverUrl,
    redirectUri: REDIRECT_URI,
    redirectToAuthorization: async (url) => {
      log(`authorizing at ${url.origin}${url.pathname}`);
      return followAuthorization(url);
    },
    clientMetadata: { client_name: "mcp-codegen-everything-client", application_type: "native" },
    clientMetadataUrl: CLIENT_METADATA_URL,
    preRegistered: preRegistered(context),
    ...(protocolVersion && { protocolVersion }),
    ...extra,
  });
}

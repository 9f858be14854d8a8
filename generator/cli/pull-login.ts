/**
 * `pull`'s login to a protected HTTP server, done before the MCP client connects (its request timeouts
 * would cut a login short). An unauthenticated probe, a JSON-RPC `ping`, tells whether the server wants a
 * token; when it answers 401, the runtime's `OAuthClient` takes over with a `FileTokenStore`: a stored
 * token is reused (refreshed when it expired), else the user logs in in a browser and the authorization
 * server redirects to a loopback endpoint on 127.0.0.1 that this waits on. The registration (client name
 * "mcp-codegen", a native app) and the tokens stay in the file; no token is ever printed.
 */

import type { Authorizer } from "@mcp-codegen/runtime/http-client";
import { CliError } from "./errors.js";
import { openInBrowser } from "./open-url.js";

export interface PullLogin {
  /** The token file (`FileTokenStore`). */
  readonly tokenFile: string;
  /** How long to wait for the browser to come back, from the moment the URL is printed. */
  readonly timeoutMs: number;
  /** Try to open the URL in a browser as well as printing it. */
  readonly open: boolean;
  /** Why no login may start now (`--check`, `--no-login`, CI); undefined when one may. */
  readonly refusal?: string;
}

export interface LoggedIn {
  readonly authorizer: Authorizer;
  /** Stops the loopback endpoint. */
  close(): Promise<void>;
}

const PROBE = JSON.stringify({ jsonrpc: "2.0", id: "mcp-codegen-login", method: "ping" });
/** The loopback endpoint lives as long as the command; the login's own timer bounds each wait. */
const LOOPBACK_LIFETIME_MS = 2 ** 31 - 1;

/**
 * An authorizer holding a token for `url`, or undefined when the server, sent `headers`, asks for none. `say` prints the
 * URL to open (on stderr, even with --quiet: the user must see it).
 */
export async function logIn(
  url: URL,
  headers: Readonly<Record<string, string>>,
  login: PullLogin,
  requestTimeoutMs: number,
  say: (line: string) => void,
): Promise<LoggedIn | undefined> {
  const timed: typeof fetch = (input, init) =>
    fetch(input, { ...init, signal: AbortSignal.timeout(requestTimeoutMs) });
  const probe = (fetchFn: typeof fetch) =>
    fetchFn(url, {
      method: "POST",
      // The user's own headers too: a server that wants an API key must not look like one wanting a login.
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: PROBE,
    });
  // A server that cannot be reached is reported by the connection that follows, as for any server.
  const first = await probe(timed).catch(() => undefined);
  await first?.body?.cancel().catch(() => {});
  if (first?.status !== 401) return undefined;

  const [{ OAuthClient, OAuthClientError }, { authorizedFetch }, node] = await Promise.all([
    import("@mcp-codegen/runtime/auth"),
    import("@mcp-codegen/runtime/http-client"),
    import("@mcp-codegen/runtime/node"),
  ]);
  const { AuthorizationResponseError, FileTokenStore, LoopbackRedirectError, loopbackRedirect } = node;
  const server = `${url.origin}${url.pathname}`;
  // No login may start: no endpoint to wait on, and no redirectToAuthorization, so that the client stops
  // before it would register (a stored token is still used and refreshed).
  const redirect =
    login.refusal === undefined ? await loopbackRedirect({ timeoutMs: LOOPBACK_LIFETIME_MS }) : undefined;
  const close = async () => {
    await redirect?.close();
  };
  const authorizer = new OAuthClient({
    serverUrl: url,
    redirectUri: redirect?.redirectUri ?? "http://127.0.0.1/callback",
    store: new FileTokenStore(login.tokenFile),
    // A native app: the authorization server takes its loopback redirect on whatever port a later login gets.
    clientMetadata: { client_name: "mcp-codegen", application_type: "native" },
    ...(redirect && {
      redirectToAuthorization: async (authorizationUrl: URL) => {
        say(`Open this URL to log in: ${authorizationUrl.href}`);
        if (login.open) openInBrowser(authorizationUrl);
        try {
          return await within(
            redirect.wait(authorizationUrl.searchParams.get("state") ?? ""),
            login.timeoutMs,
          );
        } catch (error) {
          if (error === TIMED_OUT)
            throw new CliError(
              `no login within ${login.timeoutMs / 1000} s: the browser did not come back to ${redirect.redirectUri}. Run pull again (--login-timeout <seconds> allows longer)`,
            );
          if (error instanceof LoopbackRedirectError && error.reason === "state_mismatch")
            throw new CliError(
              `login refused: the redirect to ${redirect.redirectUri} carried a state that is not this login's (a stale or forged response). Run pull again`,
            );
          if (error instanceof AuthorizationResponseError)
            throw new CliError(`login failed: ${error.message}`);
          throw error;
        }
      },
    }),
  });
  try {
    const second = await probe(authorizedFetch(timed, authorizer));
    await second.body?.cancel().catch(() => {});
    if (second.status === 401 || second.status === 403)
      throw new CliError(`${server} refused the token the login gave (HTTP ${second.status})`);
  } catch (error) {
    await close();
    // The client's "needs a login, and has no redirectToAuthorization": the refusal, said for this command.
    if (
      login.refusal !== undefined &&
      error instanceof OAuthClientError &&
      error.code === "authorization_failed"
    )
      throw new CliError(
        `${server} needs a login, and ${login.refusal}. Run \`mcp-codegen pull ${url.href}\` in a terminal to log in (the token is kept in ${login.tokenFile}), then run this again`,
      );
    throw error;
  }
  return { authorizer, close };
}

const TIMED_OUT = Symbol("timed out");

/** `promise`, or a rejection with TIMED_OUT after `ms`; the timer never outlives the race. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(TIMED_OUT), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

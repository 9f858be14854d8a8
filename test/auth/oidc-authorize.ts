/**
 * Plays the user's browser against the test authorization server: opens an authorization URL, follows the
 * provider's redirects with a cookie jar, signs in on its login page (or cancels), lets consent happen, and
 * stops at the redirect that leaves the authorization server (the one to the client's `redirect_uri`),
 * which it returns without following.
 */

export interface AuthorizeOptions {
  /** The account to sign in as: it becomes the tokens' `sub`. Default "alice". */
  readonly accountId?: string;
  /** Cancel on the login page instead: the client gets `error=access_denied`. */
  readonly deny?: boolean;
}

/** What the client's redirect endpoint receives on success (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export interface AuthorizationResponse {
  readonly code: string;
  readonly state: string | undefined;
  readonly iss: string | undefined;
}

/** The authorization server answered the client with an error redirect (RFC 6749 §4.1.2.1). */
export class AuthorizationDenied extends Error {
  constructor(
    readonly error: string,
    readonly description: string | undefined,
    readonly redirect: URL,
  ) {
    super(`authorization refused: ${error}${description ? ` (${description})` : ""}`);
    this.name = "AuthorizationDenied";
  }
}

const MAX_HOPS = 12;

/** Name → value; a browser would also key on path, but the provider's cookie names are distinct. */
class CookieJar {
  readonly #cookies = new Map<string, string>();

  take(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = "", date = ""] = a.split("=");
        return key.trim().toLowerCase() === "expires" && Date.parse(date) <= Date.now();
      });
      if (expired || value === "") this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.#cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/**
 * Drives `authorizationUrl` to the redirect that leaves `issuerOrigin`; returns that redirect's URL,
 * whatever it carries (a code or an error).
 */
export async function authorizeRedirect(
  issuerOrigin: string,
  authorizationUrl: string | URL,
  options: AuthorizeOptions = {},
): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    if (url.origin !== issuerOrigin)
      throw new Error(`the authorization URL is not on ${issuerOrigin}: ${url}`);
    const response = await fetch(url, {
      method: form ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: jar.header(),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form,
    });
    jar.take(response);
    form = undefined;
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location !== null) {
      await response.body?.cancel();
      const next = new URL(location, url);
      if (next.origin !== issuerOrigin) return next;
      url = next;
      continue;
    }
    const text = await response.text();
    if (response.status === 200 && url.pathname.startsWith("/interaction/") && text.includes("<form")) {
      // The login page: post its form the way a user pressing a button would.
      url = new URL(`${url.pathname}/${options.deny ? "abort" : "login"}`, url);
      form = new URLSearchParams({ account: options.accountId ?? "alice" });
      continue;
    }
    throw new Error(
      `authorization stopped at ${url.pathname} with HTTP ${response.status}: ${shorten(text)}`,
    );
  }
  throw new Error(`authorization did not finish within ${MAX_HOPS} redirects`);
}

/** Like `authorizeRedirect`, and reads the code; an error redirect throws `AuthorizationDenied`. */
export async function authorize(
  issuerOrigin: string,
  authorizationUrl: string | URL,
  options: AuthorizeOptions = {},
): Promise<AuthorizationResponse> {
  const redirect = await authorizeRedirect(issuerOrigin, authorizationUrl, options);
  const params = redirect.searchParams;
  const error = params.get("error");
  if (error !== null)
    throw new AuthorizationDenied(error, params.get("error_description") ?? undefined, redirect);
  const code = params.get("code");
  if (code === null) throw new Error(`the redirect to ${redirect.origin}${redirect.pathname} has no code`);
  return { code, state: params.get("state") ?? undefined, iss: params.get("iss") ?? undefined };
}

/** An error page's text, without markup, cut short: enough to see why. */
function shorten(html: string): string {
  const text = html
    .replace(/<style[\s\S]*?<\/style>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

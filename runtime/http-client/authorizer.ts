/**
 * How an HTTP client transport takes part in authorization without knowing OAuth: before each request it
 * asks the authorizer for headers (`Authorization`, `DPoP`), and when the server answers 401 or 403 it
 * hands the response over; the authorizer obtains or widens a token and says whether to send the request
 * again. The OAuth client in `auth/` is one authorizer; a static bearer token is another.
 */

export interface AuthorizedRequest {
  readonly method: string;
  readonly url: string;
}

export interface Authorizer {
  /** Headers for this request; an empty object when there is no credential yet. */
  headers(request: AuthorizedRequest): Promise<Record<string, string>>;
  /**
   * The server refused the request (401 or 403). Return true once a retry may succeed (a token obtained,
   * refreshed or widened, a DPoP nonce learned); false to give the refusal to the caller.
   */
  challenged(response: Response, request: AuthorizedRequest): Promise<boolean>;
}

/** At most this many retries of one request, however often the authorizer asks: no login loops. */
export const MAX_AUTHORIZATION_RETRIES = 3;

/**
 * A fetch that adds the authorizer's headers and retries after a challenge it answered. Bodies are
 * strings here (JSON-RPC text), so a request can be sent again as is.
 */
export function authorizedFetch(inner: typeof fetch, authorizer: Authorizer): typeof fetch {
  return async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const request: AuthorizedRequest = { method: init?.method ?? "GET", url };
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(await authorizer.headers(request))) headers.set(name, value);
      const response = await inner(input, { ...init, headers });
      if (response.status !== 401 && response.status !== 403) return response;
      if (attempt >= MAX_AUTHORIZATION_RETRIES) return response;
      let retry: boolean;
      try {
        retry = await authorizer.challenged(response, request);
      } catch (error) {
        // The login failed: its error is the caller's answer, and the refusal's body is not read.
        await response.body?.cancel().catch(() => {});
        throw error;
      }
      if (!retry) return response;
      await response.body?.cancel().catch(() => {});
    }
  };
}

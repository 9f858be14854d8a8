/** What every HTTP client transport takes to make its requests: the headers sent with each, and the fetch. */

import { type Authorizer, authorizedFetch } from "./authorizer.js";

export type HeadersOption =
  | Record<string, string>
  | (() => Record<string, string> | Promise<Record<string, string>>);

export interface FetchOptions {
  /** Sent on every request (e.g. Authorization); a function is called before each request. */
  headers?: HeadersOption;
  /** Makes the requests; the global fetch by default. */
  fetch?: typeof fetch;
  /** Adds credentials to each request and answers the server's 401/403 challenges (an OAuth client). */
  authorizer?: Authorizer;
}

/** The given fetch, or the global one looked up at each call (tests and polyfills may replace it later). */
export function fetchOf(options: FetchOptions): typeof fetch {
  const inner: typeof fetch = options.fetch ?? ((input, init) => fetch(input, init));
  return options.authorizer ? authorizedFetch(inner, options.authorizer) : inner;
}

/** The headers of one request, starting from the option's current value; the caller adds its own. */
export async function resolveHeaders(option: HeadersOption | undefined): Promise<Headers> {
  if (option === undefined) return new Headers();
  return new Headers(typeof option === "function" ? await option() : option);
}

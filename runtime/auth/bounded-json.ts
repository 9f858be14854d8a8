/**
 * What the client reads from authorization servers and metadata hosts it does not control: JSON
 * documents of bounded size, fetched with a deadline, so a hostile or stuck server cannot exhaust memory
 * or hang a login.
 */

import { readWithin } from "../util/read-within.js";

/** Metadata, registration and token responses are a few KiB; a megabyte is far past any honest one. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Each metadata, registration or token request (not the user's login, which takes its own time). */
export const AUTH_REQUEST_TIMEOUT_MS = 30_000;

export const requestDeadline = () => AbortSignal.timeout(AUTH_REQUEST_TIMEOUT_MS);

/**
 * The body parsed as JSON; undefined when it is not JSON (the caller names what it expected), a throw
 * when it is larger than the bound.
 */
export async function readJson(response: Response, what: string): Promise<unknown> {
  const declared = Number(response.headers.get("content-length"));
  if (declared > MAX_DOCUMENT_BYTES) {
    await response.body?.cancel().catch(() => {});
    throw new RangeError(`${what} is ${declared} bytes, over the ${MAX_DOCUMENT_BYTES}-byte bound`);
  }
  if (!response.body) return undefined;
  const bytes = await readWithin(response.body, MAX_DOCUMENT_BYTES, {
    tooLarge: () => new RangeError(`${what} is over the ${MAX_DOCUMENT_BYTES}-byte bound`),
  });
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}

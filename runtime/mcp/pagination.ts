/** Opaque cursors for list results, and a client-side loop over pages. */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from "../util/base64.js";

const PREFIX = "mcpc1.";

/** A cursor clients cannot mistake for something to parse or edit: a tagged, base64url offset. */
export const encodeCursor = (offset: number): string =>
  PREFIX + toBase64Url(utf8Bytes(JSON.stringify({ o: offset })));

export function decodeCursor(cursor: string): number {
  try {
    if (!cursor.startsWith(PREFIX)) throw new Error("foreign cursor");
    const bytes = fromBase64Url(cursor.slice(PREFIX.length));
    if (!bytes) throw new Error("not base64url");
    const { o } = JSON.parse(utf8Text(bytes)) as {
      o?: unknown;
    };
    if (typeof o === "number" && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // falls through to the protocol error below
  }
  throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
}

/** One page of `items` after `cursor`; `nextCursor` is present while more remain. Bad cursor → -32602. */
export function paginate<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { page: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  if (start > items.length) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
  const end = Math.min(items.length, start + pageSize);
  return { page: items.slice(start, end), ...(end < items.length ? { nextCursor: encodeCursor(end) } : {}) };
}

/** Calls `fetchPage` until the server stops returning `nextCursor`; yields each page. Bounded by `maxPages`. */
export async function* pages<R extends { nextCursor?: string | undefined }>(
  fetchPage: (cursor: string | undefined) => Promise<R>,
  maxPages = 10_000,
): AsyncGenerator<R> {
  let cursor: string | undefined;
  for (let i = 0; i < maxPages; i++) {
    const page = await fetchPage(cursor);
    yield page;
    if (!page.nextCursor) return;
    cursor = page.nextCursor;
  }
  throw new McpError(ErrorCode.InternalError, `more than ${maxPages} pages; giving up`);
}

/**
 * Every page of a list request (`tools/list`, …) from a live server, bounded: a server whose cursors
 * repeat or never end gets an error, never an endless loop. `pull` and `mcp-codegen test` both read lists so.
 */

/** Bounds a server whose cursors never end. */
export const MAX_PAGES = 1000;

export type Page = Record<string, unknown> & { nextCursor?: string };

/**
 * The items under `key` of every page `list` answers for `method`, in order. `onPage` hears which page
 * is being asked for (1-based), for messages about where a failure happened.
 */
export async function allPages(
  method: string,
  key: string,
  list: (params: { cursor?: string }) => Promise<Page>,
  onPage?: (page: number) => void,
): Promise<unknown[]> {
  const items: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_PAGES; page++) {
    onPage?.(page);
    const result = await list(cursor === undefined ? {} : { cursor });
    const found = result[key];
    if (!Array.isArray(found)) throw new Error(`the ${method} result has no ${key} array`);
    items.push(...found);
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
    if (seen.has(cursor)) throw new Error(`${method} repeats the cursor ${JSON.stringify(cursor)}`);
    seen.add(cursor);
  }
  throw new Error(`${method} has more than ${MAX_PAGES} pages`);
}

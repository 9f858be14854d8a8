/** Content negotiation: what an Accept header admits. */

/** Whether an Accept header admits `type` (wildcards count; `q=0` excludes). */
export function accepts(header: string | null, type: string): boolean {
  if (!header) return false;
  const [major] = type.split("/", 1);
  return header.split(",").some((range) => {
    const [name, ...params] = range.split(";");
    const media = name!.trim().toLowerCase();
    if (params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/i.test(p))) return false;
    return media === type || media === `${major}/*` || media === "*/*";
  });
}

const BOTH_CACHE_ENTRIES = 64;
const BOTH_CACHE_HEADER_CHARS = 256;

/**
 * Whether an Accept header admits both application/json and text/event-stream (what a Streamable HTTP
 * POST must list). A client sends the same header on every request, so a handler remembers the answer
 * for the headers it saw lately, bounded in count and size.
 */
export class AcceptMemo {
  readonly #seen = new Map<string, boolean>();

  jsonAndSse(header: string | null): boolean {
    if (!header) return false;
    let both = this.#seen.get(header);
    if (both === undefined) {
      both = accepts(header, "application/json") && accepts(header, "text/event-stream");
      if (header.length <= BOTH_CACHE_HEADER_CHARS) {
        if (this.#seen.size >= BOTH_CACHE_ENTRIES) this.#seen.clear();
        this.#seen.set(header, both);
      }
    }
    return both;
  }
}

/** Request bodies: read within a byte limit, then parsed as JSON. */

import { MAX_TEXT_DEPTH, MAX_TEXT_ITEMS, textExcess } from "../check/depth.js";
import { ErrorCode } from "../jsonrpc/messages.js";
import { readWithin } from "../util/read-within.js";
import type { Reply } from "./core.js";
import { HttpError, TRANSPORT_ERROR } from "./http-error.js";
import { errorReply } from "./replies.js";

export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** Reads the body, refusing (413) as soon as it passes `maxBytes`: never more than the limit is held. */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return new Uint8Array(0);
  return readWithin(request.body, maxBytes, {
    tooLarge: () => tooLarge(maxBytes),
    // The Node adapter stops an oversize upload with an HttpError; other failures are a broken upload.
    broken: (error) =>
      error instanceof HttpError
        ? error
        : new HttpError(400, "Bad Request: the request body could not be read"),
  });
}

const tooLarge = (maxBytes: number) =>
  new HttpError(413, `Payload Too Large: the body exceeds ${maxBytes} bytes`);

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Parses a JSON body; not UTF-8, not JSON, or nested too deep to parse cheaply → HTTP 400 with a
 * JSON-RPC -32700 body; more than `maxItems` values and member names (too many to parse and check without
 * holding every other client up, `MAX_TEXT_ITEMS` by default) → HTTP 413, refused unparsed.
 */
export function parseJson(
  bytes: Uint8Array,
  maxItems = MAX_TEXT_ITEMS,
): { value: unknown } | { error: Reply } {
  try {
    const text = utf8.decode(bytes);
    const excess = textExcess(text, MAX_TEXT_DEPTH, maxItems);
    if (excess === "depth") {
      const message = `Parse error: the body nests more than ${MAX_TEXT_DEPTH} levels deep`;
      return { error: errorReply(400, ErrorCode.ParseError, message) };
    }
    if (excess === "items") {
      const message = `Payload Too Large: the body holds more than ${maxItems} JSON values and member names`;
      return { error: errorReply(413, TRANSPORT_ERROR, message) };
    }
    return { value: JSON.parse(text) };
  } catch {
    return { error: errorReply(400, ErrorCode.ParseError, "Parse error: the body is not valid JSON") };
  }
}

/** Reading newline-delimited JSON: bytes in, one parsed value (or one framing error) per line out. */

import { isUtf8 } from "node:buffer";
import { MAX_TEXT_DEPTH, textTooDeep } from "../check/depth.js";
import type { JsonRpcErrorObject } from "../jsonrpc/messages.js";
import { messageOf } from "../util/errors.js";

/** Where a LineReader puts what it read. */
export interface LineSink {
  value(value: unknown): void;
  error(error: JsonRpcErrorObject): void;
}

const NEWLINE = 0x0a;
/** A line that JSON would read as nothing: only white space (tested without copying the line). */
const BLANK = /^\s*$/;

/**
 * Splits bytes into lines and parses each as JSON. Splitting happens on the newline byte, which never
 * occurs inside a UTF-8 sequence. A line that is not valid UTF-8 is refused with -32700, as a Streamable
 * HTTP body is (JSON text is UTF-8; replacing bad bytes with U+FFFD would run a request nobody sent).
 * A line inside one chunk is checked and decoded in one go; a line spread over chunks is kept as bytes
 * until its newline.
 */
export class LineReader {
  readonly #maxBytes: number;
  readonly #sink: LineSink;
  /** The start of a line spread over chunks, and its length in bytes. */
  #parts: Uint8Array[] = [];
  #bytes = 0;
  /** Set once the current line passed the limit: its bytes are dropped until the newline. */
  #discarding = false;

  /** `maxBytes`: the longest accepted line, newline excluded; longer lines are skipped and reported. */
  constructor(maxBytes: number, sink: LineSink) {
    this.#maxBytes = maxBytes;
    this.#sink = sink;
  }

  push(chunk: Uint8Array | string): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    let start = 0;
    if (this.#bytes === 0 && !this.#discarding) {
      // The common case: the chunk holds whole lines of valid UTF-8, none over the limit (the span of all
      // of them is not). One check, one decode and one split cost less than one of each per line; the
      // newline byte never occurs inside a UTF-8 sequence, so the pieces are exactly the lines. Otherwise
      // the lines go one by one below, where each is checked on its own.
      const last = bytes.lastIndexOf(NEWLINE);
      if (last > 0 && last <= this.#maxBytes && isUtf8(bytes.subarray(0, last))) {
        for (const line of bytes.toString("utf8", 0, last).split("\n")) this.#parse(line);
        start = last + 1;
      }
    }
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      if (newline === -1) {
        this.#append(bytes.subarray(start));
        return;
      }
      if (this.#bytes === 0 && !this.#discarding) this.#whole(bytes, start, newline);
      else this.#finish(bytes.subarray(start, newline));
      start = newline + 1;
    }
  }

  #whole(bytes: Buffer, start: number, end: number): void {
    if (end - start > this.#maxBytes) this.#oversize();
    else if (!isUtf8(bytes.subarray(start, end))) this.#notUtf8();
    else this.#parse(bytes.toString("utf8", start, end));
  }

  #append(bytes: Uint8Array): void {
    if (this.#discarding || bytes.length === 0) return;
    this.#bytes += bytes.length;
    if (this.#bytes > this.#maxBytes) {
      this.#discarding = true;
      this.#reset();
      return;
    }
    // Copied: the chunk's buffer may be reused by the stream once this returns.
    this.#parts.push(Uint8Array.prototype.slice.call(bytes));
  }

  /** Ends a line that began in an earlier chunk with its last bytes. */
  #finish(last: Uint8Array): void {
    this.#append(last);
    if (this.#discarding) {
      this.#discarding = false;
      this.#oversize();
      return;
    }
    const line = Buffer.concat(this.#parts);
    this.#reset();
    if (!isUtf8(line)) this.#notUtf8();
    else this.#parse(line.toString("utf8"));
  }

  #parse(text: string): void {
    // "\r" before the newline needs no stripping: JSON counts it as white space.
    if (BLANK.test(text)) return;
    if (textTooDeep(text)) {
      this.#sink.error({
        code: -32700,
        message: `Parse error: the line nests more than ${MAX_TEXT_DEPTH} levels deep`,
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.#sink.error({ code: -32700, message: `Parse error: ${messageOf(error)}` });
      return;
    }
    this.#sink.value(value);
  }

  #notUtf8(): void {
    this.#sink.error({ code: -32700, message: "Parse error: the line is not valid UTF-8" });
  }

  #oversize(): void {
    this.#sink.error({ code: -32600, message: `Message exceeds the ${this.#maxBytes}-byte limit` });
  }

  #reset(): void {
    this.#parts = [];
    this.#bytes = 0;
  }
}

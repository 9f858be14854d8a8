/** A LineReader that hands what it reads to a transport's callbacks: the read side both stdio transports share. */

import type { Transport } from "../jsonrpc/transport.js";
import { toError } from "../util/errors.js";
import { LineReader } from "./line-reader.js";

/** The line limit when none is given: a generous message, not an unbounded buffer. */
const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export const transportReader = (transport: Transport, maxBytes: number | undefined): LineReader =>
  new LineReader(maxBytes ?? DEFAULT_MAX_LINE_BYTES, {
    value: (value) => deliver(transport, () => transport.onmessage?.(value)),
    error: (error) => deliver(transport, () => transport.onframeerror?.(error)),
  });

/** A consumer that throws must not stop the remaining lines of a chunk from being read. */
function deliver(transport: Transport, fn: () => void): void {
  try {
    fn();
  } catch (error) {
    transport.onerror?.(toError(error));
  }
}

/** A LineReader that hands what it reads to a transport's callbacks: the read side both stdio transports share. */

import { runHandler, type Transport } from "../jsonrpc/transport.js";
import { LineReader } from "./line-reader.js";

/** The line limit when none is given: a generous message, not an unbounded buffer. */
const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export const transportReader = (transport: Transport, maxBytes: number | undefined): LineReader =>
  new LineReader(maxBytes ?? DEFAULT_MAX_LINE_BYTES, {
    value: (value) => runHandler(transport, () => transport.onmessage?.(value)),
    error: (error) => runHandler(transport, () => transport.onframeerror?.(error)),
  });

/** Calling the handlers a transport's user set. */

import type { Transport } from "../jsonrpc/transport.js";
import { toError } from "../util/errors.js";

/** Runs a user's handler; what it throws goes to `onerror`, never into the transport's own reading or closing. */
export function runHandler(transport: Pick<Transport, "onerror">, handler: () => void): void {
  try {
    handler();
  } catch (error) {
    transport.onerror?.(toError(error));
  }
}

/** The HTTP-level refusal a handler or the transport throws, and the code of transport refusals. */

/** Code of transport-level refusals (bad headers, unknown session): the JSON-RPC implementation range. */
export const TRANSPORT_ERROR = -32000;

/** Thrown by `authenticate` (or the transport) to answer with `status`; the message goes in the body. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

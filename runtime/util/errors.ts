/** Turning whatever was thrown into an Error or a message, in one way everywhere. */

/** The message of a thrown value; never throws (a value whose String() throws gets a fixed text). */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return "unprintable error";
  }
}

/** The thrown value as an Error (an Error passes through unchanged). */
export const toError = (error: unknown): Error =>
  error instanceof Error ? error : new Error(messageOf(error));

/** What a log line shows of a thrown value: its stack where it has one. */
export const detailOf = (error: unknown): string =>
  error instanceof Error ? (error.stack ?? error.message) : messageOf(error);

/** The error a transport gives for a send or start after it closed. */
export const transportClosed = (): Error => new Error("Transport is not open");

/** Exit codes of every command: 0 ok, 1 failure (drift, a check that found something), 2 usage or bad input. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

/** A failure the user can act on: printed as one message, no stack. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.usage,
  ) {
    super(message);
    this.name = "CliError";
  }
}

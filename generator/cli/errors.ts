import { SchemaSourceError } from "../../schema/loader.js";
import { ContractError } from "../contract/load.js";
import { SchemaLoadError } from "../load.js";
import { ModelError } from "../model.js";
import { ProjectError } from "../project.js";

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

/** Errors caused by the input (schema, contract, lock, version, flags) rather than by the generator itself. */
export function isInputError(e: unknown): e is Error {
  return (
    e instanceof CliError ||
    e instanceof ContractError ||
    e instanceof SchemaLoadError ||
    e instanceof SchemaSourceError ||
    e instanceof ModelError ||
    e instanceof ProjectError
  );
}

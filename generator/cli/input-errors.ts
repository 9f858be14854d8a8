/**
 * Which errors are the input's fault. It names the error classes of the loaders and compilers, so the CLI
 * imports it only once something was thrown (loading them all would slow every command).
 */

import { SchemaSourceError } from "../../schema/loader.js";
import { ContractError } from "../contract/load.js";
import { ProjectError } from "../project/project-config.js";
import { SchemaLoadError } from "../protocol/load.js";
import { ModelError } from "../protocol/model.js";
import { CliError } from "./errors.js";

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

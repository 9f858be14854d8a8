/**
 * Every generated name comes from here, so that a rename is one edit and names never depend on order.
 * Inline positions are named by where they sit (`CallToolRequest_params`), never by counters.
 */

import { typeIdentifier } from "../util/mangle.js";
import { HANDLER_NAME } from "./tables.js";

export const schemaName = (definition: string): string => `${definition}Schema`;

/** `CallToolRequest` + ["params"] → `CallToolRequest_params`; array items are `item`. */
export const inlineName = (definition: string, path: readonly string[]): string =>
  [definition, ...path].join("_");

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * Handler names derive from the definition that declares the message: `CallToolRequest` → `callTool`,
 * `ToolListChangedNotification` → `onToolListChanged`. The schema names its messages consistently across
 * versions, so a handler keeps its name through protocol bumps. Exceptions live in tables.HANDLER_NAME.
 */
export function handlerName(definition: string, used?: Set<string>): string {
  const override = HANDLER_NAME.find((e) => e.key === definition);
  if (override) {
    used?.add(`HANDLER_NAME:${override.key}`);
    return override.value;
  }
  if (definition.endsWith("Request")) return lowerFirst(definition.slice(0, -"Request".length));
  if (definition.endsWith("Notification")) return `on${definition.slice(0, -"Notification".length)}`;
  throw new Error(`no handler name rule for definition ${definition}`);
}

/** `list_changed` → `listChanged` (the spelling capability flags use). */
export const camelCase = (s: string): string => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Whether `name` can be written bare: as an object key or after a dot. */
export const isIdentifier = (name: string): boolean => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);

/** A definition's type in types.ts (the protocol's names are their own; see mangle.ts). */
export const typeName = (definition: string): string => typeIdentifier(definition);

/** The plain check function of a definition in validators.ts. */
export const checkName = (definition: string): string => `check${typeIdentifier(definition)}`;

/** The check of a message's `params` member; `$` keeps it apart from definitions' names. */
export const paramsCheckName = (message: string): string => `check${typeIdentifier(message)}$params`;

/**
 * A resource template variable's text as the value its JSON Schema type declares, read strictly: what
 * `Number()` would also take (`0x10`, `0b11`, ` 1`, `Infinity`) is not a number a client wrote.
 */

import type { ContractVariable } from "./contract.js";

/** An integer: an optional minus and digits. */
const INTEGER = /^-?[0-9]+$/;
/** A number: the JSON number grammar (RFC 8259 §6). */
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/**
 * The value of `raw` as a `type`, or undefined when its text is not one. An empty text is the empty
 * string for a string and the empty list for an array (RFC 6570 expands both so), and no integer,
 * number or boolean.
 */
export function variableValue(type: ContractVariable["type"], raw: string | string[]): unknown {
  if (type === "array") return Array.isArray(raw) ? raw : raw === "" ? [] : [raw];
  const text = Array.isArray(raw) ? raw.join(",") : raw;
  switch (type) {
    case "integer":
    case "number": {
      if (!(type === "integer" ? INTEGER : NUMBER).test(text)) return undefined;
      const n = Number(text);
      // Past the largest double the text names no number a handler could use.
      return Number.isFinite(n) ? n : undefined;
    }
    case "boolean":
      return text === "true" ? true : text === "false" ? false : undefined;
    default:
      return text;
  }
}

/** How a refusal names the type: `an integer`, `a number`, `true or false`. */
export const typeInWords = (type: ContractVariable["type"]): string =>
  type === "integer" ? "an integer" : type === "boolean" ? "true or false" : `a ${type}`;

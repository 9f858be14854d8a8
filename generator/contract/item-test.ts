/**
 * What a contract tells `mcp-codegen test` about one item beyond the wire: the `test:` block (`timeoutMs`,
 * `runs`: a tool known to be slow gets its own) and the values to try before sampled ones, read from JSON
 * Schema's `examples` and `default` (on a tool's input schema or its properties, on a prompt argument, on
 * a template variable). Checked here so a mistake is an error naming its place, not a value silently
 * dropped; none of it goes on the wire or into generated code.
 */

import { isObject, type Json } from "../protocol/load.js";
import { ContractError } from "./load.js";
import type { ItemTest, JsonObject } from "./model.js";

const TEST_KEYS = new Set(["timeoutMs", "runs"]);
/** setTimeout's largest delay: past it a timer fires at once. */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The item's `test:` block, checked: `{ timeoutMs?, runs? }`, each a whole number of at least 1. */
export function testHints(raw: Record<string, unknown>, file: string, where: string): ItemTest {
  const block = raw.test;
  if (block === undefined) return {};
  const at = `${where}.test`;
  if (!isObject(block))
    throw new ContractError(file, at, "must be an object: { timeoutMs?: <ms per call>, runs?: <inputs> }");
  for (const key of Object.keys(block))
    if (!TEST_KEYS.has(key))
      throw new ContractError(file, `${at}.${key}`, `unknown field (allowed: ${[...TEST_KEYS].join(", ")})`);
  const out: ItemTest = {};
  const whole = (key: "timeoutMs" | "runs", max: number, what: string) => {
    const value = block[key];
    if (value === undefined) return;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max)
      throw new ContractError(
        file,
        `${at}.${key}`,
        `must be ${what} from 1 to ${max}, not ${JSON.stringify(value)}`,
      );
    out[key] = value;
  };
  whole("timeoutMs", MAX_TIMEOUT_MS, "a whole number of milliseconds");
  whole("runs", 1_000_000, "a whole number of inputs");
  return out;
}

/** A schema's `examples` (an array, as JSON Schema says) and `default`; `at` names the schema. */
function annotations(schema: unknown, file: string, at: string): { examples?: Json[]; default?: Json } {
  if (!isObject(schema)) return {};
  const out: { examples?: Json[]; default?: Json } = {};
  if (schema.examples !== undefined) {
    if (!Array.isArray(schema.examples))
      throw new ContractError(file, `${at}.examples`, "must be an array of example values");
    out.examples = schema.examples as Json[];
  }
  if (schema.default !== undefined) out.default = schema.default as Json;
  return out;
}

/** Per field, the annotations that are present. */
function fieldsOf(
  schemas: [string, unknown][],
  file: string,
  at: (name: string) => string,
): ItemTest["fields"] {
  const fields: NonNullable<ItemTest["fields"]> = Object.create(null);
  for (const [name, schema] of schemas) {
    const found = annotations(schema, file, at(name));
    if (found.examples !== undefined || found.default !== undefined) fields[name] = found;
  }
  return Object.keys(fields).length > 0 ? fields : undefined;
}

/** A tool's examples: whole inputs on its input schema, single arguments on its top-level properties. */
export function toolExamples(inputSchema: unknown, file: string, where: string): ItemTest {
  const at = `${where}.inputSchema`;
  const whole = annotations(inputSchema, file, at);
  const out: ItemTest = {};
  if (whole.examples !== undefined) {
    whole.examples.forEach((e, i) => {
      if (!isObject(e))
        throw new ContractError(
          file,
          `${at}.examples[${i}]`,
          "an example of the whole input must be an object",
        );
    });
    out.examples = whole.examples as JsonObject[];
  }
  if (whole.default !== undefined) {
    if (!isObject(whole.default))
      throw new ContractError(file, `${at}.default`, "the default of the whole input must be an object");
    out.default = whole.default as JsonObject;
  }
  const properties = isObject(inputSchema) && isObject(inputSchema.properties) ? inputSchema.properties : {};
  const fields = fieldsOf(Object.entries(properties), file, (name) => `${at}.properties.${name}`);
  if (fields) out.fields = fields;
  return out;
}

/** A prompt's examples: each argument's `examples` (strings) and `default` (a string). */
export function promptExamples(args: Record<string, unknown>[], file: string, where: string): ItemTest {
  const fields = fieldsOf(
    args.map((a) => [a.name as string, a]),
    file,
    (name) => `${where}.arguments[${args.findIndex((a) => a.name === name)}]`,
  );
  for (const [name, found] of Object.entries(fields ?? {})) {
    const at = `${where}.arguments[${args.findIndex((a) => a.name === name)}]`;
    if (found.examples?.some((e) => typeof e !== "string"))
      throw new ContractError(file, `${at}.examples`, "must be strings (prompt arguments are strings)");
    if (found.default !== undefined && typeof found.default !== "string")
      throw new ContractError(file, `${at}.default`, "must be a string (prompt arguments are strings)");
  }
  return fields ? { fields } : {};
}

/** A template's examples: each variable schema's `examples` and `default`. */
export function templateExamples(variables: [string, unknown][], file: string, where: string): ItemTest {
  const fields = fieldsOf(variables, file, (name) => `${where}.variables.${name}`);
  return fields ? { fields } : {};
}

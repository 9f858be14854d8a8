/**
 * The standard MCP request headers of the stateless HTTP transport (`Mcp-Method`, `Mcp-Name`) and the
 * custom `Mcp-Param-*` headers a tool declares with `x-mcp-header` on its input properties: naming rules,
 * value encoding (`=?base64?…?=` for values HTTP cannot carry as they are) and the server's check of a
 * header against the body. Shared by the client (which writes them) and the server (which checks them).
 */

import { BASE64 } from "../check/formats.js";
import { isObject } from "../jsonrpc/messages.js";
import { fromBase64, toBase64, utf8Bytes, utf8Text } from "../util/base64.js";
import { entryOf } from "./tables.js";

export const METHOD_HEADER = "mcp-method";
export const NAME_HEADER = "mcp-name";
export const PARAM_HEADER_PREFIX = "mcp-param-";

/** Requests whose target travels in `Mcp-Name`, and the params member holding it. */
export const NAME_PARAM: Readonly<Record<string, "name" | "uri" | "taskId">> = {
  "tools/call": "name",
  "prompts/get": "name",
  "resources/read": "uri",
  // The tasks extension (2026-07-28 on) routes its methods by task.
  "tasks/get": "taskId",
  "tasks/update": "taskId",
  "tasks/cancel": "taskId",
};

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const SENTINEL = /^=\?base64\?(.*)\?=$/;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** What HTTP carries unchanged: visible ASCII and spaces (a received value may also hold tabs). */
const VISIBLE = /^[\x20-\x7e]*$/;
const HEADER_SAFE = /^[\t\x20-\x7e]*$/;

/** Whether `name` is an HTTP token (RFC 9110 §5.6.2): what a header name may be. */
export const isToken = (name: string): boolean => TOKEN.test(name);

/** Visible ASCII and inner spaces, no white space at either end: sent as it is. */
const isPlain = (value: string): boolean => VISIBLE.test(value) && value === value.trim();

/** A header value for `value`: as it is when HTTP carries it unchanged, else the base64 sentinel form. */
export function encodeHeaderValue(value: string): string {
  if (isPlain(value) && !SENTINEL.test(value)) return value;
  return `=?base64?${toBase64(utf8Bytes(value))}?=`;
}

/** The value a header carries, the sentinel decoded; undefined when the sentinel's base64 is malformed. */
export function decodeHeaderValue(header: string): string | undefined {
  const match = SENTINEL.exec(header);
  if (!match) return header;
  const body = match[1]!;
  const bytes = BASE64.test(body) ? fromBase64(body) : undefined;
  return bytes && utf8Text(bytes);
}

/** A parameter a tool mirrors into a header: its `Mcp-Param-<name>` and where it sits in the arguments. */
export interface HeaderParam {
  name: string;
  path: readonly string[];
  type: "string" | "integer" | "boolean";
}

export type ToolHeaders = { ok: true; params: HeaderParam[] } | { ok: false; reason: string };

/**
 * The `x-mcp-header` declarations of a tool's input schema, reached through `properties` only, or why
 * the tool is invalid (a client leaves such a tool out of its list): empty or non-token name, a name
 * used twice (ignoring case), a property that is not a string, integer or boolean, or a declaration
 * anywhere else (under `items`, `anyOf`, `$defs`, …), which no header could follow.
 */
export function toolHeaderParams(inputSchema: unknown): ToolHeaders {
  const params: HeaderParam[] = [];
  const seen = new Set<string>();
  const reachable = new Set<object>();
  const visit = (schema: unknown, path: string[]): string | undefined => {
    if (!isObject(schema) || !isObject(schema.properties)) return undefined;
    for (const [key, property] of Object.entries(schema.properties)) {
      if (!isObject(property)) continue;
      reachable.add(property);
      const name = property["x-mcp-header"];
      if (name !== undefined) {
        const where = `property ${[...path, key].join(".")}`;
        if (typeof name !== "string") return `${where}: x-mcp-header is not a string`;
        if (name === "") return `${where}: empty x-mcp-header`;
        if (!isToken(name)) return `x-mcp-header ${JSON.stringify(name)} is not a valid HTTP header name`;
        const lower = name.toLowerCase();
        if (seen.has(lower)) return `x-mcp-header ${JSON.stringify(name)} is declared twice`;
        seen.add(lower);
        const type = property.type;
        if (type !== "string" && type !== "integer" && type !== "boolean") {
          return `x-mcp-header ${JSON.stringify(name)} is on a property of type ${JSON.stringify(type)} (string, integer or boolean only)`;
        }
        params.push({ name, path: [...path, key], type });
      }
      const nested = visit(property, [...path, key]);
      if (nested) return nested;
    }
    return undefined;
  };
  const problem = visit(inputSchema, []) ?? strayDeclaration(inputSchema, reachable, "");
  return problem ? { ok: false, reason: problem } : { ok: true, params };
}

/** Keywords whose value maps names to schemas, and keywords whose value is data rather than schemas. */
const SCHEMA_MAPS: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
]);
const DATA: ReadonlySet<string> = new Set(["const", "enum", "default", "examples"]);

/** An `x-mcp-header` on a schema not reached from the root through `properties` alone. */
function strayDeclaration(
  schema: unknown,
  reachable: ReadonlySet<object>,
  pointer: string,
): string | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  const children: Array<[string, unknown]> = [];
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) children.push([`${pointer}/${i}`, item]);
  } else {
    if ("x-mcp-header" in schema && !reachable.has(schema))
      return `x-mcp-header at ${pointer || "the schema root"} is not on a property reachable through "properties" alone`;
    for (const [key, value] of Object.entries(schema)) {
      if (DATA.has(key)) continue;
      if (SCHEMA_MAPS.has(key) && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) children.push([`${pointer}/${key}/${name}`, sub]);
      } else children.push([`${pointer}/${key}`, value]);
    }
  }
  for (const [at, child] of children) {
    const found = strayDeclaration(child, reachable, at);
    if (found) return found;
  }
  return undefined;
}

function valueAt(args: unknown, path: readonly string[]): unknown {
  let node = args;
  for (const key of path) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** The text a header carries for an argument value, or undefined when no header is sent (absent, null). */
function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= MAX_SAFE)
    return String(value);
  return undefined;
}

/** The `Mcp-Param-*` headers (lower-case names) for a call's arguments. */
export function paramHeaders(params: readonly HeaderParam[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const p of params) {
    const text = headerText(valueAt(args, p.path));
    if (text !== undefined)
      headers[`${PARAM_HEADER_PREFIX}${p.name.toLowerCase()}`] = encodeHeaderValue(text);
  }
  return headers;
}

/** The standard headers of a request: `Mcp-Method`, and `Mcp-Name` where the method has a target. */
export function standardHeaders(method: string, params: unknown): Record<string, string> {
  const headers: Record<string, string> = { [METHOD_HEADER]: method };
  const member = entryOf(NAME_PARAM, method);
  const target = member && isObject(params) ? params[member] : undefined;
  if (typeof target === "string") headers[NAME_HEADER] = encodeHeaderValue(target);
  return headers;
}

/**
 * The server's check of the standard headers against a request body: undefined when they agree, else
 * the reason (answered 400 with HeaderMismatch). `get` reads a request header by lower-case name.
 */
export function checkStandardHeaders(
  get: (name: string) => string | undefined,
  method: string,
  params: unknown,
): string | undefined {
  const sent = get(METHOD_HEADER);
  if (sent === undefined) return "the Mcp-Method header is missing";
  if (sent.trim() !== method)
    return `Mcp-Method header value '${sent}' does not match body value '${method}'`;
  const member = entryOf(NAME_PARAM, method);
  if (!member) return undefined;
  const target = isObject(params) ? params[member] : undefined;
  const header = get(NAME_HEADER);
  if (header === undefined) return "the Mcp-Name header is missing";
  const decoded = decodeHeaderValue(header.trim());
  if (decoded === undefined) return "the Mcp-Name header has malformed base64";
  if (decoded !== target)
    return `Mcp-Name header value '${header}' does not match body value '${String(target)}'`;
  return undefined;
}

/**
 * The server's check of a tool's `Mcp-Param-*` headers against the call's arguments: a header must be
 * present when the argument is, carry only valid characters, and decode to the argument's value.
 */
export function checkParamHeaders(
  get: (name: string) => string | undefined,
  params: readonly HeaderParam[],
  args: unknown,
): string | undefined {
  for (const p of params) {
    const expected = headerText(valueAt(args, p.path));
    const header = get(`${PARAM_HEADER_PREFIX}${p.name.toLowerCase()}`);
    if (expected === undefined) continue;
    if (header === undefined) return `the Mcp-Param-${p.name} header is missing`;
    const raw = header.trim();
    if (!HEADER_SAFE.test(raw)) return `the Mcp-Param-${p.name} header has invalid characters`;
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return `the Mcp-Param-${p.name} header has malformed base64`;
    const same =
      p.type === "integer"
        ? Number(decoded) === Number(expected) && decoded.trim() !== ""
        : decoded === expected;
    if (!same) return `Mcp-Param-${p.name} header value '${header}' does not match body value '${expected}'`;
  }
  return undefined;
}

/**
 * What a peer learned from tools/list about each tool's `x-mcp-header` parameters: the client, for the
 * `Mcp-Param-*` headers of its calls (a tool whose declarations are invalid is left out of its list, as
 * the spec requires, with the reason); the server, to check those headers against a call's arguments.
 */
export class ToolHeaderParams {
  readonly #byTool = new Map<string, readonly HeaderParam[]>();

  admit(tools: readonly unknown[]): { kept: unknown[]; rejected: Array<{ name: string; reason: string }> } {
    const kept: unknown[] = [];
    const rejected: Array<{ name: string; reason: string }> = [];
    for (const tool of tools) {
      const name = isObject(tool) && typeof tool.name === "string" ? tool.name : undefined;
      const found = toolHeaderParams(isObject(tool) ? tool.inputSchema : undefined);
      if (!found.ok) {
        rejected.push({ name: name ?? "(unnamed)", reason: found.reason });
        if (name !== undefined) this.#byTool.delete(name);
        continue;
      }
      if (name !== undefined) this.#byTool.set(name, found.params);
      kept.push(tool);
    }
    return { kept, rejected };
  }

  /** The header parameters of `name` (none for a tool never listed). */
  of(name: unknown): readonly HeaderParam[] {
    return (typeof name === "string" ? this.#byTool.get(name) : undefined) ?? [];
  }

  /** The `Mcp-Param-*` headers of a call to `name` (none for a tool never listed). */
  headers(name: unknown, args: unknown): Record<string, string> {
    const params = typeof name === "string" ? this.#byTool.get(name) : undefined;
    return params && params.length > 0 ? paramHeaders(params, args) : {};
  }
}

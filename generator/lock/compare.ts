/**
 * A server's lists against its contract, so what a client reads is what the contract declares:
 * `tools/list` the same tool names, each inputSchema and outputSchema equal as JSON (key order aside);
 * `prompts/list` the same prompts with the same arguments (name, required); `resources/templates/list`
 * the same templates (uriTemplate, mimeType); `resources/list` every declared resource (a server may list
 * more, found at run time), with its name and mimeType.
 */

import { canonicalJson } from "../contract/load.js";
import type { ContractPrompt, ContractResource, ContractTemplate, JsonObject } from "../contract/model.js";
import { taskSupportOf } from "../contract/task-support.js";
import { own } from "../util/records.js";

/** At most this many differing places are named per schema: the first ones locate the mistake. */
const MAX_PLACES = 5;

/** What differs, one line each (`tool add: inputSchema/properties/a/type: contract "number", server "string"`). */
export function compareTools(declared: readonly JsonObject[], listed: readonly unknown[]): string[] {
  const { out, served } = byKey(listed, "name", "tools/list");
  const names = new Set(declared.map((t) => t.name as string));
  for (const tool of declared) {
    const name = tool.name as string;
    const other = served.get(name);
    if (!other) {
      out.push(`tool ${name}: declared in the contract, missing from tools/list`);
      continue;
    }
    for (const key of ["inputSchema", "outputSchema"] as const) {
      for (const place of differences(tool[key], other[key], key)) out.push(`tool ${name}: ${place}`);
    }
    const [declaredSupport, listedSupport] = [taskSupportOf(tool), taskSupportOf(other)];
    if (declaredSupport !== listedSupport)
      out.push(`tool ${name}: execution.taskSupport: contract ${declaredSupport}, server ${listedSupport}`);
  }
  for (const name of [...served.keys()].sort())
    if (!names.has(name)) out.push(`tool ${name}: listed by the server, not declared in the contract`);
  return out;
}

/** What differs between the contract's prompts and `prompts/list`, one line each. */
export function comparePrompts(declared: readonly ContractPrompt[], listed: readonly unknown[]): string[] {
  const { out, served } = byKey(listed, "name", "prompts/list");
  for (const prompt of declared) {
    const other = served.get(prompt.name);
    if (!other) {
      out.push(`prompt ${prompt.name}: declared in the contract, missing from prompts/list`);
      continue;
    }
    const args = byKey(
      Array.isArray(other.arguments) ? other.arguments : [],
      "name",
      `prompt ${prompt.name}: arguments`,
    );
    out.push(...args.out);
    for (const arg of prompt.arguments) {
      const listedArg = args.served.get(arg.name);
      const at = `prompt ${prompt.name}: argument ${arg.name}`;
      if (!listedArg) out.push(`${at}: declared in the contract, missing from prompts/list`);
      else if ((listedArg.required === true) !== arg.required)
        out.push(`${at}: contract ${optionality(arg.required)}, server ${optionality(!arg.required)}`);
    }
    const declaredArgs = new Set(prompt.arguments.map((a) => a.name));
    for (const name of [...args.served.keys()].sort())
      if (!declaredArgs.has(name))
        out.push(
          `prompt ${prompt.name}: argument ${name}: listed by the server, not declared in the contract`,
        );
  }
  const names = new Set(declared.map((p) => p.name));
  for (const name of [...served.keys()].sort())
    if (!names.has(name)) out.push(`prompt ${name}: listed by the server, not declared in the contract`);
  return out;
}

/** What differs between the contract's resource templates and `resources/templates/list`, one line each. */
export function compareTemplates(
  declared: readonly ContractTemplate[],
  listed: readonly unknown[],
): string[] {
  const { out, served } = byKey(listed, "name", "resources/templates/list");
  for (const template of declared) {
    const other = served.get(template.name);
    if (!other) {
      out.push(
        `resource template ${template.name}: declared in the contract, missing from resources/templates/list`,
      );
      continue;
    }
    for (const key of ["uriTemplate", "mimeType"] as const)
      for (const place of differences(template.definition[key], other[key], key))
        out.push(`resource template ${template.name}: ${place}`);
  }
  const names = new Set(declared.map((t) => t.name));
  for (const name of [...served.keys()].sort())
    if (!names.has(name))
      out.push(`resource template ${name}: listed by the server, not declared in the contract`);
  return out;
}

/** Which declared resources `resources/list` lacks or lists otherwise (by URI), one line each. */
export function compareResources(
  declared: readonly ContractResource[],
  listed: readonly unknown[],
): string[] {
  const { out, served } = byKey(listed, "uri", "resources/list");
  for (const resource of declared) {
    const uri = resource.definition.uri as string;
    const other = served.get(uri);
    if (!other) {
      out.push(`resource ${resource.name}: declared in the contract (${uri}), missing from resources/list`);
      continue;
    }
    for (const key of ["name", "mimeType"] as const)
      for (const place of differences(resource.definition[key], other[key], key))
        out.push(`resource ${resource.name}: ${place}`);
  }
  return out;
}

const optionality = (required: boolean): string => (required ? "required" : "optional");

/** The entries of a list by their `key` (a string), and a line for each entry without one. */
function byKey(
  listed: readonly unknown[],
  key: string,
  where: string,
): { out: string[]; served: Map<string, Record<string, unknown>> } {
  const out: string[] = [];
  const served = new Map<string, Record<string, unknown>>();
  for (const item of listed) {
    const value =
      typeof item === "object" && item !== null ? (item as Record<string, unknown>)[key] : undefined;
    if (typeof value === "string") served.set(value, item as Record<string, unknown>);
    else out.push(`${where} holds an entry without a ${key}: ${JSON.stringify(item)}`);
  }
  return { out, served };
}

/** The places where two JSON values differ, by JSON pointer-like path, at most MAX_PLACES. */
function differences(contract: unknown, server: unknown, path: string): string[] {
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, at: string) => {
    if (out.length >= MAX_PLACES || canonicalJson(a) === canonicalJson(b)) return;
    const bothObjects =
      typeof a === "object" &&
      a !== null &&
      typeof b === "object" &&
      b !== null &&
      Array.isArray(a) === Array.isArray(b);
    if (!bothObjects) {
      out.push(`${at}: contract ${show(a)}, server ${show(b)}`);
      return;
    }
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(own(a, k), own(b, k), `${at}/${k}`);
  };
  walk(contract, server, path);
  return out;
}

const show = (v: unknown): string => (v === undefined ? "absent" : truncate(JSON.stringify(v)));
const truncate = (s: string): string => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

/**
 * A server's `tools/list` against its contract: the same tool names, and each tool's inputSchema and
 * outputSchema equal as JSON (key order aside), so what a client reads is what the contract declares.
 */

import { canonicalJson } from "./load.js";
import type { JsonObject } from "./model.js";

/** At most this many differing places are named per schema: the first ones locate the mistake. */
const MAX_PLACES = 5;

/** What differs, one line each (`tool add: inputSchema/properties/a/type: contract "number", server "string"`). */
export function compareTools(declared: readonly JsonObject[], listed: readonly unknown[]): string[] {
  const out: string[] = [];
  const served = new Map<string, Record<string, unknown>>();
  for (const tool of listed) {
    if (typeof tool === "object" && tool !== null && typeof (tool as { name?: unknown }).name === "string")
      served.set((tool as { name: string }).name, tool as Record<string, unknown>);
    else out.push(`tools/list holds an entry without a name: ${JSON.stringify(tool)}`);
  }
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
  }
  for (const name of [...served.keys()].sort())
    if (!names.has(name)) out.push(`tool ${name}: listed by the server, not declared in the contract`);
  return out;
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
    for (const k of keys)
      walk((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}/${k}`);
  };
  walk(contract, server, path);
  return out;
}

const show = (v: unknown): string => (v === undefined ? "absent" : truncate(JSON.stringify(v)));
const truncate = (s: string): string => (s.length > 80 ? `${s.slice(0, 77)}...` : s);

/**
 * The method tables `pull` connects with: the protocol's own, except that a list result (tools, prompts,
 * resources, resource templates) is mended before it is checked. A malformed field of an entry (a
 * `readOnlyHint` that is not a boolean, an icon without a `src`) is left out, and an entry that cannot be
 * mended (no name, a required field missing) is left out whole, each with a warning naming the entry and
 * the place: one odd tool must not lose the whole pull, and the lock records only what is well-formed.
 */

import {
  boundsDepth,
  type Check,
  type Fail,
  type ProtocolTables,
  tooDeep,
} from "@mcp-codegen/runtime/codegen";
import { tooDeepToKeep } from "../lock/lock.js";
import { isObject } from "../protocol/load.js";

/** Each list method: the result's list and what its entries are called. */
const LISTS: Readonly<Record<string, { key: string; noun: string }>> = {
  "tools/list": { key: "tools", noun: "tool" },
  "prompts/list": { key: "prompts", noun: "prompt" },
  "resources/list": { key: "resources", noun: "resource" },
  "resources/templates/list": { key: "resourceTemplates", noun: "resource template" },
};

/** How many places of one entry may be left out before the entry counts as malformed as a whole. */
const MAX_MENDS = 64;

/** `tables` (and its legacy tables) with each list result mended before its check; warnings go to `warnings`. */
export function lenientTables(tables: ProtocolTables, warnings: string[]): ProtocolTables {
  const clientRequests = { ...tables.clientRequests };
  for (const [method, list] of Object.entries(LISTS)) {
    const entry = clientRequests[method];
    if (entry) clientRequests[method] = { ...entry, result: mending(entry.result, list, warnings) };
  }
  return {
    ...tables,
    clientRequests,
    ...(tables.legacy ? { legacy: lenientTables(tables.legacy, warnings) } : {}),
  };
}

/**
 * `check`, after mending each entry of `list.key` it finds wrong: each entry is checked alone (in a copy of
 * the result holding only it), the place that fails is left out (or, when it is missing, the place holding
 * it), until the entry passes; an entry whose name fails, or that would have to be left out itself, is
 * removed. Whatever still fails (the result's own fields) fails as before.
 */
function mending(check: Check, list: { key: string; noun: string }, warnings: string[]): Check {
  // The runtime would refuse the whole result for one entry nested past its bound: here an entry too deep
  // for the lock is left out (before any check recurses into it), and the rest of the result is bounded
  // as every checked message is.
  return boundsDepth((value: unknown) => {
    if (!isObject(value) || !Array.isArray(value[list.key])) return tooDeep(value) ?? check(value);
    const listed = value[list.key] as unknown[];
    const shallow = listed.filter((entry) => {
      const why = isObject(entry) ? tooDeepToKeep(list.key, entry) : undefined;
      if (why) warnings.push(why);
      return why === undefined;
    });
    listed.splice(0, listed.length, ...shallow);
    const rest = tooDeep({ ...value, [list.key]: [] });
    if (rest) return rest;
    const whole = check(value);
    if (!whole || !isObject(value) || !Array.isArray(value[list.key])) return whole;
    const entries = value[list.key] as unknown[];
    const alone = (entry: unknown) => check({ ...value, [list.key]: [entry] });
    const kept: unknown[] = [];
    entries.forEach((entry, index) => {
      const name = nameOf(entry, index, list.noun);
      const first = alone(entry);
      const left: string[] = [];
      let failure = first;
      for (let n = 0; failure && n < MAX_MENDS; n++) {
        const [key, position, ...path] = failure.path;
        if (key !== list.key || position !== 0) break;
        const place = path.slice(0, presentDepth(entry, path));
        if (place.length === 0 || place[0] === "name") break;
        leaveOut(entry, place);
        const named = place.length < path.length ? `${path.join(".")}: ` : "";
        left.push(`${place.join(".")} (${named}${failure.message})`);
        failure = alone(entry);
      }
      if (failure && first) {
        warnings.push(`${name} is left out: ${reason(first)}`);
        return;
      }
      if (left.length > 0) warnings.push(`${name}: left out ${left.join(", ")}`);
      kept.push(entry);
    });
    entries.splice(0, entries.length, ...kept);
    return check(value);
  });
}

const nameOf = (entry: unknown, index: number, noun: string): string =>
  isObject(entry) && typeof entry.name === "string"
    ? `${noun} ${JSON.stringify(entry.name)}`
    : `${noun} #${index + 1} of the page`;

const reason = (failure: Fail): string => {
  const place = failure.path.slice(2).join(".");
  return place === "" ? failure.message : `${place}: ${failure.message}`;
};

/** How many steps of `path` exist below `entry` (a failure for a missing field names the field). */
function presentDepth(entry: unknown, path: (string | number)[]): number {
  let node = entry;
  for (let i = 0; i < path.length; i++) {
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, path[i]!)) return i;
    node = (node as Record<string | number, unknown>)[path[i]!];
  }
  return path.length;
}

/** Deletes the value at `place` below `entry` (an array element is removed, so the array stays an array). */
function leaveOut(entry: unknown, place: (string | number)[]): void {
  let parent = entry as Record<string | number, unknown>;
  for (const step of place.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>;
  const last = place.at(-1)!;
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else delete parent[last];
}

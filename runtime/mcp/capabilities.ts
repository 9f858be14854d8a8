/** Capabilities follow from the handlers a peer has; gating checks the other side's declaration. */

import { isObject } from "../jsonrpc/messages.js";
import type { CapabilityRef, MethodEntry } from "./tables.js";

export type Capabilities = Record<string, unknown>;

/** The capabilities object implied by the methods a peer handles (`tools/call` → `{ tools: {} }`). */
export function deriveCapabilities(
  entries: Iterable<MethodEntry>,
  handles: (entry: MethodEntry) => boolean,
): Capabilities {
  const caps: Capabilities = {};
  for (const entry of entries) {
    if (!entry.capability || !handles(entry)) continue;
    declare(caps, entry.capability);
  }
  return caps;
}

/** Sets the capability at `ref.path`, creating objects on the way; the leaf is `true` for flags. */
export function declare(caps: Capabilities, ref: CapabilityRef): void {
  let node: Record<string, unknown> = caps;
  ref.path.forEach((key, i) => {
    const last = i === ref.path.length - 1;
    if (last && ref.leaf === "flag") node[key] = true;
    else {
      if (!isObject(node[key])) node[key] = {};
      node = node[key] as Record<string, unknown>;
    }
  });
}

/** Whether `caps` declares the capability at `ref.path` (a flag must be `true`, an object present). */
export function hasCapability(caps: unknown, ref: CapabilityRef): boolean {
  let node: unknown = caps;
  for (const key of ref.path) {
    if (!isObject(node) || !(key in node)) return false;
    node = node[key];
  }
  return ref.leaf === "flag" ? node === true : isObject(node);
}

/** Deep merge of plain objects; `extra` wins on conflicts. */
export function mergeCapabilities(base: Capabilities, extra: Capabilities | undefined): Capabilities {
  if (!extra) return base;
  const out: Capabilities = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    out[key] =
      isObject(value) && isObject(out[key]) ? mergeCapabilities(out[key] as Capabilities, value) : value;
  }
  return out;
}

/** A readable name for error messages: `resources.subscribe`. */
export const capabilityName = (ref: CapabilityRef): string => ref.path.join(".");

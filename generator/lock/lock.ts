/**
 * A lock: what a live server declared (tools, prompts, resources, resource templates, and skills when it
 * offers them), each definition in
 * canonical form with its sha256, so a contract can be compared later (`pull --check`) and a client
 * generated from it without the server. Deterministic: the same lists give byte-identical text, whatever
 * order the server listed them in.
 */

import { ContractError, canonicalJson, canonicalSha256 } from "../contract/load.js";
import type { JsonObject } from "../contract/model.js";
import { depthReason, MAX_LOCK_DEPTH, shortPointer, tooDeep } from "../protocol/depth.js";
import { isObject } from "../protocol/load.js";
import { type SkillLockItem, skillLockItems, skillLockProblem } from "./skills.js";

export const LOCK_VERSION = 1;

export interface LockItem {
  name: string;
  /** sha256 of the definition's canonical JSON. */
  sha256: string;
  definition: JsonObject;
}

export type LockKind = "tools" | "prompts" | "resources" | "resourceTemplates";
export const LOCK_KINDS: readonly LockKind[] = ["tools", "prompts", "resources", "resourceTemplates"];

export interface ContractLock {
  lockVersion: typeof LOCK_VERSION;
  server: { name: string; version: string };
  protocolVersion: string;
  /** sha256 of the canonical JSON of the four lists (not of the server's name or version). */
  sha256: string;
  tools: LockItem[];
  prompts: LockItem[];
  /** Sorted by URI (names of resources need not be unique). */
  resources: LockItem[];
  resourceTemplates: LockItem[];
  /**
   * Lists left out on purpose (`pull --no-resources`: a server whose fixed resources are its data, which
   * changes); `pull --check` leaves them out of the comparison too.
   */
  without?: "resources"[];
  /**
   * The skills a server lists when it declares the Skills extension (skills.ts); left out of the lock's
   * sha256, since the generated client does not depend on them.
   */
  skills?: SkillLockItem[];
}

export interface PulledLists {
  server: { name: string; version: string };
  protocolVersion: string;
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
  resourceTemplates: unknown[];
  /** The server's skill entries, checked by the client (absent: the server does not offer skills). */
  skills?: readonly { uri: string; frontmatter: { name: string } }[];
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The key an item is known by: its URI for resources, its name otherwise. */
export const itemKey = (kind: LockKind, item: LockItem): string =>
  kind === "resources" ? String(item.definition.uri) : item.name;

/**
 * Why an entry a server listed is too deep to keep (hashing, comparing and rendering the lock recurse),
 * as the warning that says it is left out, or undefined. `kind` is its list (`tools`).
 */
export function tooDeepToKeep(kind: string, entry: Record<string, unknown>): string | undefined {
  const deep = tooDeep(entry, MAX_LOCK_DEPTH);
  if (deep === undefined) return undefined;
  const key = kind === "resources" ? entry.uri : entry.name;
  return `${kind}: "${String(key)}" is left out: ${shortPointer(deep)} is ${depthReason(MAX_LOCK_DEPTH)}`;
}

/** Builds the lock from what the server listed; malformed or repeated entries are left out with a warning. */
export function buildLock(
  pulled: PulledLists,
  without: readonly "resources"[] = [],
): { lock: ContractLock; warnings: string[] } {
  const warnings: string[] = [];
  const lists = {} as Record<LockKind, LockItem[]>;
  for (const kind of LOCK_KINDS) {
    const seen = new Set<string>();
    const items: LockItem[] = [];
    for (const raw of without.includes(kind as "resources") ? [] : pulled[kind]) {
      const keyField = kind === "resources" ? "uri" : "name";
      if (!isObject(raw) || typeof raw.name !== "string" || typeof raw[keyField] !== "string") {
        warnings.push(`${kind}: an entry without a ${keyField} is left out`);
        continue;
      }
      const deep = tooDeepToKeep(kind, raw);
      if (deep !== undefined) {
        warnings.push(deep);
        continue;
      }
      // Round-tripped through canonical JSON: keys sorted at every level, `undefined` gone.
      const definition = JSON.parse(canonicalJson(raw)) as JsonObject;
      const item = { name: raw.name, sha256: canonicalSha256(definition), definition };
      const key = itemKey(kind, item);
      if (seen.has(key)) {
        warnings.push(`${kind}: "${key}" is listed twice; the first is kept`);
        continue;
      }
      seen.add(key);
      items.push(item);
    }
    lists[kind] = items.sort((a, b) => cmp(itemKey(kind, a), itemKey(kind, b)));
  }
  const lock: ContractLock = {
    lockVersion: LOCK_VERSION,
    server: { name: pulled.server.name, version: pulled.server.version },
    protocolVersion: pulled.protocolVersion,
    sha256: contractSha256(lists),
    ...lists,
    ...(without.length > 0 ? { without: [...without] } : {}),
    ...(pulled.skills ? { skills: skillLockItems(pulled.skills) } : {}),
  };
  return { lock, warnings };
}

function contractSha256(lists: Record<LockKind, LockItem[]>): string {
  return canonicalSha256(Object.fromEntries(LOCK_KINDS.map((k) => [k, lists[k].map((i) => i.definition)])));
}

/** The lock's file text: canonical key order, two-space indent, final newline. */
export function renderLock(lock: ContractLock): string {
  return `${JSON.stringify(JSON.parse(canonicalJson(lock)), null, 2)}\n`;
}

/** Reads a lock file's text; anything that is not a lock of this version is a ContractError. */
export function parseLock(text: string, file: string): ContractLock {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ContractError(file, "", `not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(doc)) throw new ContractError(file, "", "not a lock: the document is not an object");
  // An item sits three levels down (`tools/0/definition`); hashing it recurses.
  const deep = tooDeep(doc, MAX_LOCK_DEPTH + 3);
  if (deep !== undefined) throw new ContractError(file, shortPointer(deep), depthReason(MAX_LOCK_DEPTH));
  if (doc.lockVersion !== LOCK_VERSION)
    throw new ContractError(
      file,
      "lockVersion",
      `must be ${LOCK_VERSION} (a lock written by mcp-codegen pull)`,
    );
  if (!isObject(doc.server) || typeof doc.server.name !== "string" || typeof doc.server.version !== "string")
    throw new ContractError(file, "server", "must be { name, version }");
  if (typeof doc.protocolVersion !== "string")
    throw new ContractError(file, "protocolVersion", "must be a string");
  if (
    doc.without !== undefined &&
    !(Array.isArray(doc.without) && doc.without.every((k) => k === "resources"))
  )
    throw new ContractError(file, "without", 'must be ["resources"] (what pull --no-resources writes)');
  for (const kind of LOCK_KINDS) {
    const list = doc[kind];
    if (!Array.isArray(list)) throw new ContractError(file, kind, "must be an array");
    list.forEach((item, i) => {
      if (!isObject(item) || typeof item.name !== "string" || !isObject(item.definition))
        throw new ContractError(file, `${kind}[${i}]`, "must be { name, sha256, definition }");
      if (item.sha256 !== canonicalSha256(item.definition))
        throw new ContractError(
          file,
          `${kind}[${i}]`,
          "its sha256 does not match its definition (edited by hand?)",
        );
    });
  }
  if (doc.skills !== undefined) {
    const bad = skillLockProblem(doc.skills);
    if (bad) throw new ContractError(file, bad.place, bad.problem);
  }
  return doc as unknown as ContractLock;
}

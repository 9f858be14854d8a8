/**
 * Identifiers made from names a contract, a lock or a server chose. One rule, in three uses:
 *
 * - `typeIdentifier(definition)`: a definition's type name (and, after `check`, its check function). A name
 *   already in the form json-schema-to-typescript keeps (PascalCase letters and digits, a letter after a
 *   digit upper case) stays as it is, so every protocol name does; any other name becomes that form plus
 *   `X` and 8 hex digits of its sha256, which a kept name never ends with: no two names meet.
 * - `typeNamesOf(names)`: the readable PascalCase form of each item name of one kind (`get_user` →
 *   `GetUser`). Names that share a form are told apart by the same suffix, on all of them but the first
 *   in code-unit order, so adding an item renames another only when it shares its form and sorts first.
 * - `identifierToken(token)`: one segment of a hoisted module-level name (`pattern$Tool$properties$a_b`):
 *   kept when it is made of `[A-Za-z0-9_]` and does not end like a suffix, else the same suffix after it.
 *
 * The results start with a letter and are never a reserved word or an Object.prototype member: type names
 * start upper case, and tokens only ever follow a lower-case prefix (`pattern$`, `check$`). Two names
 * could meet only through a 32-bit sha256 prefix collision; the emitters refuse that as an error rather
 * than emit one name twice (contract/load.ts's claim, emit/types.ts, emit/validators.ts's hoistName).
 */

import { createHash } from "node:crypto";

const SUFFIX = /X[0-9A-F]{8}$/;

/** `X` and the first 8 hex digits of the sha256 of `name`, upper case. */
const suffixOf = (name: string): string => `X${digest(name).toUpperCase()}`;

/** 8 hex digits of the sha256 of `text`'s UTF-16 code units (UTF-8 would merge lone surrogates). */
const digest = (text: string): string =>
  createHash("sha256").update(Buffer.from(text, "utf16le")).digest("hex").slice(0, 8);

/** `get_user` → `GetUser`, `2fa-check` → `N2FaCheck`: letters and digits only, never empty. */
export function pascalCase(name: string): string {
  const words = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  const joined = words
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("")
    // json-schema-to-typescript upper-cases a letter after digits; doing it first makes the name its own.
    .replace(/([0-9])([a-z])/g, (_, d: string, c: string) => d + c.toUpperCase());
  return joined === "" || /^[0-9]/.test(joined) ? `N${joined}` : joined;
}

/** Whether `name` is a type name as it stands (see the module comment). */
const isTypeName = (name: string): boolean => pascalCase(name) === name && !SUFFIX.test(name);

/** A definition's name as a TypeScript type name: itself when it is one, else its readable form + suffix. */
export const typeIdentifier = (definition: string): string =>
  isTypeName(definition) ? definition : `${pascalCase(definition)}${suffixOf(definition)}`;

/** Each name's readable type-name form, distinct for distinct names (see the module comment). */
export function typeNamesOf(names: Iterable<string>): Map<string, string> {
  const byForm = new Map<string, string[]>();
  for (const name of new Set(names)) {
    const form = pascalCase(name);
    const group = byForm.get(form);
    if (group) group.push(name);
    else byForm.set(form, [name]);
  }
  const out = new Map<string, string>();
  for (const [form, group] of byForm) {
    group.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    group.forEach((name, i) => {
      out.set(name, i === 0 && !SUFFIX.test(form) ? form : `${form}${suffixOf(name)}`);
    });
  }
  return out;
}

const TOKEN_SUFFIX = /_[0-9a-f]{8}$/;

/** A segment of a hoisted name: `[A-Za-z0-9_]` only, distinct for distinct segments. */
export function identifierToken(token: string): string {
  const safe = token.replace(/[^A-Za-z0-9_]/g, "_");
  if (safe === token && !TOKEN_SUFFIX.test(token)) return token;
  return `${safe}_${digest(token)}`;
}

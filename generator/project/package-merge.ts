/**
 * `init --force` over a folder that already has a package.json: the scaffold's manifest merged into the
 * user's rather than put in its place. The user's fields, scripts and dependencies stay; the scaffold's
 * dependencies are added or set to the ranges it was built with, its scripts and other fields added
 * where the user has none. Every change is listed, so `init` can print what it did to the user's file.
 */

type Json = Record<string, unknown>;

export interface PackageMerge {
  text: string;
  /** One line per change (`added scripts.test`, `devDependencies.tsx: ^4.0.0 → ^4.23.15`, `kept your scripts.build`). */
  changes: string[];
}

const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];
/** The scaffold's code is ES modules: a package of another type would not run it. */
const REQUIRED = { type: "module" };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `ours` (the scaffold's package.json text) merged into `theirs` (the user's), or undefined when the
 * user's text is not a JSON object (then there is nothing to merge into).
 */
export function mergePackageJson(theirs: string, ours: string): PackageMerge | undefined {
  let user: unknown;
  try {
    user = JSON.parse(theirs);
  } catch {
    return undefined;
  }
  if (!isObject(user)) return undefined;
  const scaffold = JSON.parse(ours) as Json;
  const merged: Json = { ...user };
  const changes: string[] = [];

  for (const [key, value] of Object.entries(REQUIRED)) {
    if (merged[key] === value) continue;
    changes.push(
      merged[key] === undefined ? `added ${key}` : `${key}: ${JSON.stringify(merged[key])} → "${value}"`,
    );
    merged[key] = value;
  }

  // A dependency of the scaffold's stays in the section the user keeps it in, at the scaffold's range.
  const placed = new Map<string, string>();
  for (const field of DEPENDENCY_FIELDS)
    if (isObject(merged[field])) for (const name of Object.keys(merged[field])) placed.set(name, field);
  for (const field of DEPENDENCY_FIELDS) {
    const wanted = scaffold[field];
    if (!isObject(wanted)) continue;
    for (const [name, range] of Object.entries(wanted)) {
      const at = placed.get(name) ?? field;
      const section = isObject(merged[at]) ? { ...merged[at] } : {};
      if (section[name] === range) continue;
      changes.push(
        section[name] === undefined
          ? `added ${at}.${name} ${range}`
          : `${at}.${name}: ${String(section[name])} → ${range}`,
      );
      section[name] = range;
      merged[at] = sorted(section);
    }
  }

  for (const [field, value] of Object.entries(scaffold)) {
    if (DEPENDENCY_FIELDS.includes(field) || field in REQUIRED) continue;
    if (isObject(value) && (isObject(merged[field]) || merged[field] === undefined)) {
      // scripts, engines, allowScripts: each entry of ours the user lacks; theirs kept.
      const section = isObject(merged[field]) ? { ...merged[field] } : {};
      for (const [key, entry] of Object.entries(value)) {
        if (!(key in section)) {
          section[key] = entry;
          changes.push(`added ${field}.${key}`);
        } else if (JSON.stringify(section[key]) !== JSON.stringify(entry)) {
          changes.push(`kept your ${field}.${key} (the scaffold's: ${JSON.stringify(entry)})`);
        }
      }
      merged[field] = section;
    } else if (merged[field] === undefined) {
      merged[field] = value;
      changes.push(`added ${field}`);
    }
  }
  return { text: `${JSON.stringify(merged, null, 2)}\n`, changes };
}

const sorted = (section: Json): Json =>
  Object.fromEntries(Object.entries(section).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

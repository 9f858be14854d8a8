import registry from "./versions.json" with { type: "json" };

export type Dialect = "draft-07" | "2020-12";
export type VersionStatus = "released" | "draft";

export interface VersionEntry {
  /** The version string spoken on the wire (the draft's differs from its folder name). */
  readonly protocolVersion: string;
  readonly url: string;
  readonly sha256: string;
  readonly dialect: Dialect;
  readonly status: VersionStatus;
  /** How a session starts: the initialize handshake, or stateless discover (checked against the schema). */
  readonly lifecycle: "initialize" | "discover";
  /** Whether JSON-RPC batches are allowed (only 2025-03-26; checked against the schema). */
  readonly batches: boolean;
}

/**
 * An official extension's schema, pinned like a protocol version, keyed `<extension id>@<its version>`
 * (extensions are versioned apart from the core protocol). It comes from the npm package that publishes
 * it, as installed in the project, or from the usual local places; it is never downloaded.
 */
export interface ExtensionEntry {
  /** `<name>@<exact version>` of the npm package that publishes the schema. */
  readonly package: string;
  /** The package export that is the schema file, e.g. `./schema.json`. */
  readonly export: string;
  readonly sha256: string;
  readonly dialect: Dialect;
}

interface Registry {
  readonly default: string;
  readonly versions: Readonly<Record<string, VersionEntry>>;
  readonly extensions: Readonly<Record<string, ExtensionEntry>>;
}

// JSON imports type string fields as plain `string`; versions.json is checked by test/schema/registry.test.ts.
const data = registry as Registry;
for (const entry of Object.values(data.versions)) Object.freeze(entry);
Object.freeze(data.versions);
for (const entry of Object.values(data.extensions)) Object.freeze(entry);
Object.freeze(data.extensions);

export const defaultVersion: string = data.default;

// Released versions are ISO dates, so string order is date order; drafts sort after every release.
const ordered: readonly string[] = Object.keys(data.versions).sort((a, b) => {
  const da = data.versions[a]!.status === "draft";
  const db = data.versions[b]!.status === "draft";
  if (da !== db) return da ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
});

export function listVersions(): string[] {
  return [...ordered];
}

export function getVersion(version: string): VersionEntry | undefined {
  // hasOwn keeps "constructor" and friends from resolving through the prototype.
  return Object.hasOwn(data.versions, version) ? data.versions[version] : undefined;
}

// Several versions can share one file (draft equals the newest release until it diverges);
// the earliest in listVersions order wins, so a released version is preferred over the draft.
export function knownVersionForSha256(sha256: string): string | undefined {
  const wanted = sha256.toLowerCase();
  return ordered.find((v) => data.versions[v]!.sha256 === wanted);
}

/** The pinned extension schemas' keys (`io.modelcontextprotocol/ui@2026-01-26`), sorted. */
export function listExtensions(): string[] {
  return Object.keys(data.extensions).sort();
}

export function getExtension(key: string): ExtensionEntry | undefined {
  return Object.hasOwn(data.extensions, key) ? data.extensions[key] : undefined;
}

/** `io.modelcontextprotocol/ui@2026-01-26` → its id and version; the id may itself hold a `/`. */
export function splitExtensionKey(key: string): { id: string; version: string } {
  const at = key.lastIndexOf("@");
  return { id: key.slice(0, at), version: key.slice(at + 1) };
}

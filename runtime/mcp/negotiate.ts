import type { SupportedVersion } from "./tables.js";

/**
 * The version a server answers to an initialize request: the client's when supported, else the newest
 * the server supports (the client then decides whether it can go on).
 */
export function negotiateVersion(
  requested: unknown,
  supported: readonly SupportedVersion[],
): SupportedVersion {
  return supported.find((s) => s.version === requested) ?? supported[0]!;
}

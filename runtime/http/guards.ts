/** Host and Origin checks (DNS-rebinding protection). */

import type { CoreRequest, Reply } from "./core.js";
import type { Cors } from "./cors.js";
import { TRANSPORT_ERROR } from "./http-error.js";
import { errorReply } from "./replies.js";

/**
 * Both checks read the request's own Host header. Forwarding headers (X-Forwarded-Host, Forwarded) are
 * never read: any client can write them. Behind a proxy, allow the Host the proxy sends.
 */
export interface OriginPolicy {
  /** `host:port`, or a bare host name matching any port. Undefined: no Host check. */
  allowedHosts?: readonly string[];
  /** Exact origins. Undefined: only an Origin naming the request's own Host is allowed. */
  allowedOrigins?: readonly string[];
}

/**
 * Host and Origin checks (DNS-rebinding protection) for one policy, its Host allowlist read once into
 * two sets: a lookup per request.
 */
export class HostGuard {
  /** Allowed `host:port` (and bare host) values, lower case. */
  readonly #exact: ReadonlySet<string> | undefined;
  /** Allowed host names given without a port: any port goes. */
  readonly #names: ReadonlySet<string> | undefined;

  /** `cors`: its origins are admitted too (a page they serve may call this server). */
  constructor(
    private readonly policy: OriginPolicy,
    private readonly cors?: Cors,
  ) {
    const hosts = policy.allowedHosts?.map((entry) => entry.toLowerCase());
    this.#exact = hosts && new Set(hosts);
    this.#names = hosts && new Set(hosts.filter((entry) => hostName(entry) === entry));
  }

  /** A 403 for a Host outside the allowlist or a cross-origin request not allowed; undefined when fine. */
  check(request: CoreRequest): Reply | undefined {
    const host = request.header("host")?.toLowerCase() ?? "";
    if (this.#exact && !this.#exact.has(host) && !this.#names!.has(hostName(host))) {
      return errorReply(403, TRANSPORT_ERROR, "Forbidden: Host not allowed");
    }
    const origin = request.header("origin");
    if (
      origin !== null &&
      !originAllowed(origin, host, this.policy.allowedOrigins) &&
      !this.cors?.allows(origin)
    ) {
      return errorReply(403, TRANSPORT_ERROR, "Forbidden: Origin not allowed");
    }
    return undefined;
  }
}

/** `[::1]:80` → `[::1]`, `a.b:80` → `a.b`, `a.b` → `a.b`. */
function hostName(host: string): string {
  const colon = host.lastIndexOf(":");
  return colon > host.lastIndexOf("]") ? host.slice(0, colon) : host;
}

function originAllowed(origin: string, host: string, allowed: readonly string[] | undefined): boolean {
  let normalized: URL;
  try {
    normalized = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, file:) and garbage are never trusted
  }
  if (allowed) return allowed.some((entry) => sameOrigin(entry, normalized.origin));
  return normalized.host.toLowerCase() === host;
}

function sameOrigin(entry: string, origin: string): boolean {
  try {
    return new URL(entry).origin === origin;
  } catch {
    return false;
  }
}

/** The host names a server bound to `host` answers to when it is loopback, else undefined (no check). */
export function loopbackHosts(host: string, port: number): string[] | undefined {
  const loopback = host === "127.0.0.1" || host === "::1" || host === "localhost" || host === "[::1]";
  if (!loopback) return undefined;
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

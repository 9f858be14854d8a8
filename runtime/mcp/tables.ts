/**
 * The shape of the method tables every generated protocol.ts exports. The runtime reads only these
 * tables and the version string it is handed; it names no protocol version itself.
 */

import type { Check } from "../check/check.js";

export type Direction = "client-to-server" | "server-to-client";

export interface CapabilityRef {
  /** Whose capabilities object declares it: a request's receiver, a notification's sender. */
  readonly side: "client" | "server";
  readonly path: readonly string[];
  /** What the last path element holds when declared: `true` for a flag (`listChanged`), else an object. */
  readonly leaf: "flag" | "object";
}

export interface SupportedVersion {
  readonly version: string;
  /** JSON-RPC batches are allowed on the wire in this version. */
  readonly batches: boolean;
}

export interface MethodEntry {
  readonly method: string;
  readonly direction: Direction;
  /** Name of the handler that serves it in the generated handler interfaces. */
  readonly handler: string;
  /** Validates the message's `params` member (absent params included where the schema allows it). */
  readonly params: Check;
  readonly capability: CapabilityRef | null;
}

export interface RequestEntry extends MethodEntry {
  /** Validates a result (`undefined` when valid). */
  readonly result: Check;
  /** `input`: sent inside an InputRequiredResult rather than as a JSON-RPC request (2026-07-28 on). */
  readonly delivery: "message" | "input";
  /** A handler exception becomes a result with `isError: true` (tools/call) instead of a JSON-RPC error. */
  readonly errorAsResult?: boolean;
  /** The request may be answered with an InputRequiredResult and retried with `inputResponses` (2026-07-28 on). */
  readonly inputRequired?: boolean;
  /** The result carries caching hints, `ttlMs` and `cacheScope` (2026-07-28 on). */
  readonly cacheable?: boolean;
}

export type NotificationEntry = MethodEntry;

export interface ProtocolTables {
  readonly version: string;
  readonly lifecycle: "initialize" | "discover";
  /** Newest first; the first is the version the code was generated from. */
  readonly supportedVersions: readonly SupportedVersion[];
  readonly clientRequests: Readonly<Record<string, RequestEntry>>;
  readonly serverRequests: Readonly<Record<string, RequestEntry>>;
  readonly clientNotifications: Readonly<Record<string, NotificationEntry>>;
  readonly serverNotifications: Readonly<Record<string, NotificationEntry>>;
  /**
   * For a `discover` lifecycle: the newest `initialize`-lifecycle tables, with which a dual-era peer
   * serves (or falls back to) older peers that start with the initialize handshake.
   */
  readonly legacy?: ProtocolTables;
}

/**
 * Methods the runtime answers itself in every version (lifecycle, ping, cancellation, progress); the
 * generated handler interfaces leave them out.
 */
export const RUNTIME_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "server/discover",
  "subscriptions/listen",
  "ping",
  "notifications/cancelled",
  "notifications/progress",
]);

/**
 * A table's entry for a method named on the wire. Own properties only: a method called `constructor`
 * or `__proto__` must find nothing, not what every object inherits.
 */
export const entryOf = <E>(table: Readonly<Record<string, E>>, method: string): E | undefined =>
  Object.hasOwn(table, method) ? table[method] : undefined;

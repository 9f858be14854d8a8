/**
 * What a sealed `requestState` is bound to, so that an answer given for one request cannot serve
 * another: the method, the target (tool or prompt name, resource uri), a digest of the arguments and a
 * digest of the caller.
 *
 * Arguments: the canonical JSON (canonical-json.ts) of the request's params without the fields that
 * change from round to round, ROUND_FIELDS: `requestState` and `inputResponses` (the round's own), and
 * `_meta` (protocol version, client capabilities and identity, progress token, log level: per send, not
 * what the request asks for). Every other field, `name`, `uri` and `arguments` included, must be the
 * same on the retry.
 *
 * Caller: the authenticated subject when the transport authenticated the request (`ctx.auth`, made a
 * string by the server's `stateCaller` option, by default the value itself when a string, else its
 * canonical JSON); else the transport's session id; else no one in particular ("anyone": a stateless
 * HTTP server without `authenticate` cannot tell its callers apart, so the state is a bearer token,
 * left with its other bindings, single use and a short lifetime).
 */

import type { MessageExtra } from "../jsonrpc/transport.js";
import { toBase64Url, utf8Bytes } from "../util/base64.js";
import { canonicalJson } from "../util/canonical-json.js";
import { isAuthInfo } from "./auth-info.js";

/** The params fields a retry may change: left out of the arguments digest. */
const ROUND_FIELDS: ReadonlySet<string> = new Set(["requestState", "inputResponses", "_meta"]);

export interface RoundBinding {
  method: string;
  target: string | undefined;
  /** SHA-256 (base64url) of the canonical params without ROUND_FIELDS. */
  args: string;
  /** SHA-256 (base64url) of who the caller is (see roundCaller). */
  caller: string;
}

/** Who an authenticated caller is, from what the transport's authentication gave (`ctx.auth`). */
export type StateCaller = (auth: unknown) => string;

/**
 * The default StateCaller: an AuthInfo's subject (its token's other claims change with every token), a
 * string as it is, anything else by its canonical JSON.
 */
export function defaultStateCaller(auth: unknown): string {
  if (isAuthInfo(auth)) return auth.subject;
  if (typeof auth === "string") return auth;
  // Through JSON first: toJSON() methods apply (a Date is its text), functions drop out.
  const json = JSON.stringify(auth);
  if (json === undefined) throw new TypeError("ctx.auth is not JSON");
  return canonicalJson(JSON.parse(json));
}

/** The caller a state is bound to, as a tagged text: `auth:<subject>`, `session:<id>` or `anyone`. */
export function roundCaller(
  extra: MessageExtra | undefined,
  sessionId: string | undefined,
  stateCaller: StateCaller,
): string {
  if (extra?.auth !== undefined) return `auth:${stateCaller(extra.auth)}`;
  const session = extra?.sessionId ?? sessionId;
  return session === undefined ? "anyone" : `session:${session}`;
}

/**
 * The params a round binds, as JSON text, taken before the handler runs: the binding is of the request
 * as the client sent it, whatever a handler later does to its params object.
 */
export function boundParams(params: Record<string, unknown>): string {
  // No prototype: a `__proto__` member is bound like any other.
  const bound: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(params)) if (!ROUND_FIELDS.has(key)) bound[key] = params[key];
  try {
    return JSON.stringify(bound);
  } catch {
    // Nesting deeper than JSON.stringify recurses (JSON.parse took it): the iterative form.
    return canonicalJson(bound);
  }
}

/** The binding of a request round: `params` as boundParams took them, `caller` as roundCaller gives it. */
export async function bindingOf(
  method: string,
  target: string | undefined,
  params: string,
  caller: string,
): Promise<RoundBinding> {
  const [args, who] = await Promise.all([sha256(canonicalJson(JSON.parse(params))), sha256(caller)]);
  return { method, target, args, caller: who };
}

async function sha256(text: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8Bytes(text))));
}

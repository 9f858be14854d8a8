/**
 * The HTTP side of a protected endpoint (`StreamableHttpOptions.auth`): the metadata document at its
 * well-known addresses, the credentials check before anything else runs, the scope check of each
 * request message before it is dispatched (so a 403 precedes any byte of a stream), and who owns a session.
 */

import type { Refusal, ResourceGuard } from "../auth/guard.js";
import { isObject } from "../jsonrpc/messages.js";
import { type AuthInfo, isAuthInfo, missingScopes } from "../mcp/auth-info.js";
import { requiredScopesOf } from "../mcp/scope-error.js";
import type { Server } from "../server/server.js";
import type { CoreRequest, Reply } from "./core.js";
import { HttpError, TRANSPORT_ERROR } from "./http-error.js";
import { errorReply } from "./replies.js";

/** The Protected Resource Metadata when the request asks for it (any method but GET/HEAD: 405); else undefined. */
export function metadataReply(guard: ResourceGuard, request: CoreRequest): Reply | undefined {
  const q = request.url.indexOf("?");
  const document = guard.metadataAt(q < 0 ? request.url : request.url.slice(0, q));
  if (document === undefined) return undefined;
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorReply(405, TRANSPORT_ERROR, "Method Not Allowed", { allow: "GET" });
  }
  return {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "max-age=300" },
    ...(request.method === "GET" ? { body: document } : {}),
  };
}

/** The request's AuthInfo; throws the refusal as an HttpError (401, 403, 400, 431) otherwise. */
export async function authorized(guard: ResourceGuard, request: CoreRequest): Promise<AuthInfo> {
  const verdict = await guard.authorize(request);
  if ("refusal" in verdict) throw refusalError(verdict.refusal);
  return verdict.auth;
}

/**
 * The 403 for the first request message of `body` whose scopes (`server.requiredScopes`) the caller
 * lacks; undefined when every one may go. Only AuthInfo callers are checked: a custom `authenticate`
 * result without scopes is the server's own business.
 */
export function scopeRefusal(
  guard: ResourceGuard | undefined,
  server: Server,
  auth: unknown,
  body: unknown,
  request: CoreRequest,
): Reply | undefined {
  if (!isAuthInfo(auth)) return undefined;
  for (const message of Array.isArray(body) ? body : [body]) {
    if (!isObject(message) || typeof message.method !== "string" || message.id === undefined) continue;
    const required = server.requiredScopes(message.method, message.params);
    if (guard) {
      const refusal = guard.scopeRefusal(auth, required, request);
      if (refusal) return refusalReply(refusal);
    } else if (missingScopes(auth.scopes, required).length > 0) {
      const header = `Bearer error="insufficient_scope", scope="${required.join(" ")}"`;
      return errorReply(403, TRANSPORT_ERROR, "Forbidden: insufficient scope", {
        "www-authenticate": header,
      });
    }
  }
  return undefined;
}

/**
 * The SessionEnv hook answering a handler's InsufficientScope (a JSON-RPC error with the scopes needed)
 * as the guard's 403, when the answer is still a single JSON one.
 */
export function refusalOf(
  guard: ResourceGuard,
): (
  error: { code: number; data?: unknown },
  auth: unknown,
) => { status: number; headers: Record<string, string> } | undefined {
  return (error, auth) => {
    const required = requiredScopesOf(error);
    if (required === undefined) return undefined;
    const refusal = guard.insufficientScope(required, isAuthInfo(auth) ? auth : undefined);
    return { status: refusal.status, headers: { ...refusal.headers } };
  };
}

/** Who a session belongs to: the subject of an AuthInfo, or a string `authenticate` result. */
export function ownerOf(auth: unknown): string | undefined {
  if (isAuthInfo(auth)) return auth.subject;
  return typeof auth === "string" ? auth : undefined;
}

function refusalError(refusal: Refusal): HttpError {
  return new HttpError(refusal.status, refusal.message, { ...refusal.headers });
}

function refusalReply(refusal: Refusal): Reply {
  return errorReply(refusal.status, TRANSPORT_ERROR, refusal.message, { ...refusal.headers });
}

/**
 * Cross-origin access for browser clients (CORS): a preflight from an allowed origin is answered before
 * anything else runs (authentication included), and every answer to an allowed origin names it and
 * exposes the headers an MCP client reads. Origins are matched exactly; `*` is never sent.
 */

import { isToken, PARAM_HEADER_PREFIX } from "../mcp/param-headers.js";
import type { CoreHandler, CoreRequest, Reply } from "./core.js";

export interface CorsOptions {
  /** Exact origins (`scheme://host[:port]`) whose pages may call this server; none by default. */
  origins?: readonly string[];
  /** Also allow the MCP Inspector's web UI (`INSPECTOR_ORIGINS`): for local development. */
  inspector?: boolean;
  /** How long a browser may reuse a preflight's answer, in seconds (default 600). */
  maxAgeSec?: number;
  /** Request headers to allow beyond the ones MCP uses. */
  allowHeaders?: readonly string[];
}

/** Where the MCP Inspector serves its web UI (its default port, under both loopback names). */
export const INSPECTOR_ORIGINS: readonly string[] = Object.freeze([
  "http://localhost:6274",
  "http://127.0.0.1:6274",
]);

export const DEFAULT_CORS_MAX_AGE_SEC = 600;

/** The request headers an MCP client sends, both eras, with a bearer or DPoP-bound token. */
const MCP_REQUEST_HEADERS: readonly string[] = Object.freeze([
  "Authorization",
  "DPoP",
  "Content-Type",
  "Accept",
  "Mcp-Session-Id",
  "MCP-Protocol-Version",
  "Last-Event-ID",
  "Mcp-Method",
  "Mcp-Name",
]);

/** The response headers a client reads that are not CORS-safelisted. */
const EXPOSED = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, DPoP-Nonce";

/** Origins from a comma-separated list, such as an environment variable's value; empty entries skipped. */
export function originList(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/** One server's CORS policy, its origins normalized once: a set lookup per request. */
export class Cors {
  readonly #origins: ReadonlySet<string>;
  readonly #allowHeaders: string;
  readonly #maxAge: string;

  constructor(options: CorsOptions) {
    const listed = [...(options.origins ?? []), ...(options.inspector ? INSPECTOR_ORIGINS : [])];
    this.#origins = new Set(listed.map(originOf));
    for (const name of options.allowHeaders ?? []) {
      if (!isToken(name))
        throw new TypeError(`cors.allowHeaders: ${JSON.stringify(name)} is not a header name`);
    }
    this.#allowHeaders = [...MCP_REQUEST_HEADERS, ...(options.allowHeaders ?? [])].join(", ");
    const maxAge = options.maxAgeSec ?? DEFAULT_CORS_MAX_AGE_SEC;
    if (!Number.isSafeInteger(maxAge) || maxAge < 0)
      throw new TypeError(`cors.maxAgeSec must be a whole number of seconds ≥ 0 (got ${maxAge})`);
    this.#maxAge = String(maxAge);
  }

  /** Whether no origin is allowed. */
  get empty(): boolean {
    return this.#origins.size === 0;
  }

  /** Whether `origin` (an Origin header's value) may call this server from a page. */
  allows(origin: string): boolean {
    if (this.#origins.size === 0) return false;
    try {
      return this.#origins.has(new URL(origin).origin);
    } catch {
      return false;
    }
  }

  /**
   * The 204 answering a preflight (OPTIONS with Access-Control-Request-Method) from an allowed origin;
   * undefined for any other request, which takes its usual path (a disallowed origin's preflight thus
   * gets no CORS header, and the browser blocks the request it was asking about).
   */
  preflight(request: CoreRequest): Reply | undefined {
    if (request.method !== "OPTIONS" || request.header("access-control-request-method") === null) {
      return undefined;
    }
    const origin = request.header("origin");
    if (origin === null || !this.allows(origin)) return undefined;
    return {
      status: 204,
      headers: {
        "access-control-allow-origin": origin,
        "access-control-allow-methods": "GET, POST, DELETE",
        "access-control-allow-headers": this.#allowHeaders + paramHeadersAsked(request),
        "access-control-max-age": this.#maxAge,
        vary: "Origin, Access-Control-Request-Headers",
      },
    };
  }

  /**
   * `reply` as an allowed origin's page may read it: that origin named, the MCP headers exposed. Every
   * reply varies by Origin (a cache must not hand one origin's answer to another).
   */
  decorate(request: CoreRequest, reply: Reply): Reply {
    if (reply.headers["access-control-allow-origin"] !== undefined) return reply;
    const origin = request.header("origin");
    const vary = reply.headers.vary ? `${reply.headers.vary}, Origin` : "Origin";
    if (origin === null || !this.allows(origin)) return { ...reply, headers: { ...reply.headers, vary } };
    return {
      ...reply,
      headers: {
        ...reply.headers,
        "access-control-allow-origin": origin,
        "access-control-expose-headers": EXPOSED,
        vary,
      },
    };
  }
}

/**
 * The policy `options` describe (checked: a bad entry throws), or undefined when it allows no origin:
 * then no answer differs by Origin and nothing needs adding.
 */
export function corsPolicy(options: CorsOptions | undefined): Cors | undefined {
  if (!options) return undefined;
  const cors = new Cors(options);
  return cors.empty ? undefined : cors;
}

/** `handle` with every reply decorated by `cors`; `handle` itself when there is no policy. */
export function withCors(cors: Cors | undefined, handle: CoreHandler): CoreHandler {
  if (!cors) return handle;
  return async (request, web) => cors.decorate(request, await handle(request, web));
}

/**
 * The `Mcp-Param-*` headers a preflight asks for, as `, a, b`. A tool's parameter headers are known to
 * the server only once it has listed its tools (and a list may change), while each value is checked
 * against the call's body and grants nothing: any well-formed one is allowed.
 */
function paramHeadersAsked(request: CoreRequest): string {
  const asked = request.header("access-control-request-headers");
  if (asked === null) return "";
  let out = "";
  for (const raw of asked.split(",")) {
    const name = raw.trim().toLowerCase();
    if (name.length > PARAM_HEADER_PREFIX.length && name.startsWith(PARAM_HEADER_PREFIX) && isToken(name)) {
      out += `, ${name}`;
    }
  }
  return out;
}

/** The serialized origin of a configured entry; anything but a bare `scheme://host[:port]` is refused. */
function originOf(entry: string): string {
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  const bare =
    url && url.origin !== "null" && url.pathname === "/" && !url.search && !url.hash && !url.username;
  if (!url || !bare || !/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(entry)) {
    throw new TypeError(`cors.origins: ${JSON.stringify(entry)} is not an origin (scheme://host[:port])`);
  }
  return url.origin;
}

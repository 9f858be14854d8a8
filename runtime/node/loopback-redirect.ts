/**
 * The redirect endpoint of a CLI or desktop app's login (RFC 8252 §7.3): a `node:http` server on
 * 127.0.0.1 only, on a random port unless told, that waits for the one authorization response the
 * browser brings back.
 *
 * ```ts
 * const redirect = await loopbackRedirect({ timeoutMs: 120_000 });
 * // build the authorization URL with redirect.redirectUri and `state`, open it in a browser
 * const { code, iss } = await redirect.wait(state);
 * ```
 *
 * - Only a GET to `path` carrying `code` or `error` is an authorization response; any other path
 *   (favicon included) is 404, other methods 405, a request to `path` without either 400, and the wait
 *   goes on.
 * - `state` is compared in constant time. A response with another state (or none) rejects with
 *   `LoopbackRedirectError("state_mismatch")`; an error response (with the right state) rejects with
 *   `AuthorizationResponseError`. The browser gets a small page; what it shows from the request is
 *   HTML-escaped and cut short. RFC 9207 `iss` is passed back for the caller, who knows the issuer, to check.
 * - A response that comes before the state is known (no `expectedState`, `wait` not yet called) is held
 *   until `wait(state)`.
 * - On the first response, the timeout, or `close()`, the server stops: its timer is cleared and every
 *   connection closed once the page is sent, so nothing keeps the process alive.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface LoopbackRedirectOptions {
  /** Default 0: a port the system picks. */
  readonly port?: number;
  /** Default "/callback". */
  readonly path?: string;
  /** How long to wait for the browser, from now. Default 5 minutes. */
  readonly timeoutMs?: number;
  /** The `state` sent in the authorization request, if known now; else pass it to `wait`. */
  readonly expectedState?: string;
}

/** A successful authorization response (RFC 6749 §4.1.2, with RFC 9207 `iss` when sent). */
export interface LoopbackAuthorization {
  readonly code: string;
  readonly state: string;
  readonly iss?: string;
}

export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`: the `redirect_uri` to register and send. */
  readonly redirectUri: string;
  /** Resolves with the authorization response whose `state` is `state` (or `expectedState`). */
  wait(state?: string): Promise<LoopbackAuthorization>;
  /** Stops waiting (a pending `wait` rejects with "closed") and closes the server. */
  close(): Promise<void>;
}

/** The authorization server answered with an error (RFC 6749 §4.1.2.1). */
export class AuthorizationResponseError extends Error {
  constructor(
    readonly error: string,
    readonly errorDescription: string | undefined,
    readonly errorUri: string | undefined,
    readonly iss: string | undefined,
  ) {
    super(
      `the authorization server refused: ${cut(error)}${errorDescription ? ` (${cut(errorDescription)})` : ""}`,
    );
    this.name = "AuthorizationResponseError";
  }
}

/** The wait ended without an authorization response: timed out, wrong state, or closed. */
export class LoopbackRedirectError extends Error {
  constructor(
    readonly reason: "timeout" | "state_mismatch" | "closed",
    message: string,
  ) {
    super(message);
    this.name = "LoopbackRedirectError";
  }
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const SHOWN_CHARS = 200;

const cut = (text: string) => (text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text);
const escapeHtml = (text: string) => cut(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  // Compare equal lengths only; the length of a state is no secret worth hiding.
  return left.length === right.length && timingSafeEqual(left, right);
}

function page(res: ServerResponse, status: number, title: string, text: string, after?: () => void) {
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'",
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    ...(after ? { connection: "close" } : {}),
  });
  // "close" comes once the page is sent, or the browser goes away first: either way the server may stop.
  // A browser already gone (a held response) sends no "close" any more.
  if (after && res.socket?.destroyed === false) res.once("close", after);
  else if (after) queueMicrotask(after);
  res.end(body);
}

export async function loopbackRedirect(options: LoopbackRedirectOptions = {}): Promise<LoopbackRedirect> {
  const path = options.path ?? "/callback";
  if (!path.startsWith("/")) throw new TypeError(`loopbackRedirect: path must start with "/": ${path}`);
  let expected = options.expectedState;
  let held: { params: URLSearchParams; res: ServerResponse } | undefined;
  let settled = false;
  let resolveOutcome: (value: LoopbackAuthorization) => void = () => {};
  let rejectOutcome: (error: Error) => void = () => {};
  const outcome = new Promise<LoopbackAuthorization>((resolve, reject) => {
    resolveOutcome = resolve;
    rejectOutcome = reject;
  });
  outcome.catch(() => {}); // rejected before anyone waits: wait() returns it then

  const server = createServer((req, res) => handle(req, res));
  const closed = new Promise<void>((resolve) => server.once("close", () => resolve()));
  const stop = () => {
    server.close();
    server.closeAllConnections();
  };
  // Settles once; the server stops after the page answering the deciding request is sent.
  const settle = (result: { ok: LoopbackAuthorization } | { error: Error }, answered?: ServerResponse) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    if ("ok" in result) resolveOutcome(result.ok);
    else rejectOutcome(result.error);
    if (answered !== undefined) return;
    if (held) page(held.res, 503, "Sign-in stopped", "Return to the application.", stop);
    else stop();
    held = undefined;
  };

  const answer = (params: URLSearchParams, res: ServerResponse, state: string) => {
    const sent = params.get("state");
    if (sent === null || !sameSecret(sent, state)) {
      page(res, 400, "Sign-in failed", "This response is not for the sign-in under way. Start again.", stop);
      settle(
        {
          error: new LoopbackRedirectError(
            "state_mismatch",
            "the authorization response's state does not match",
          ),
        },
        res,
      );
      return;
    }
    const error = params.get("error");
    if (error !== null) {
      page(res, 400, "Sign-in failed", `The authorization server refused: ${escapeHtml(error)}.`, stop);
      const iss = params.get("iss") ?? undefined;
      const described = new AuthorizationResponseError(
        error,
        params.get("error_description") ?? undefined,
        params.get("error_uri") ?? undefined,
        iss,
      );
      settle({ error: described }, res);
      return;
    }
    const code = params.get("code") ?? "";
    page(res, 200, "Signed in", "You can close this window and return to the application.", stop);
    const iss = params.get("iss");
    settle({ ok: { code, state: sent, ...(iss === null ? {} : { iss }) } }, res);
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== path) return page(res, 404, "Not found", "Nothing here.");
    if (req.method !== "GET") {
      res.setHeader("allow", "GET");
      return page(res, 405, "Method not allowed", "Use GET.");
    }
    if (settled) return page(res, 410, "Sign-in over", "Return to the application.");
    const params = url.searchParams;
    if (!params.has("code") && !params.has("error")) {
      return page(res, 400, "Not a sign-in response", "The address has no authorization response.");
    }
    if (expected !== undefined) return answer(params, res, expected);
    if (held) return page(res, 409, "Sign-in busy", "Another response is being handled.");
    held = { params, res };
  };

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = setTimeout(
    () =>
      settle({
        error: new LoopbackRedirectError("timeout", `no authorization response within ${timeoutMs} ms`),
      }),
    timeoutMs,
  );
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    clearTimeout(timer);
    throw error;
  }
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;

  return {
    redirectUri,
    wait(state) {
      if (state !== undefined) {
        if (expected !== undefined && !sameSecret(state, expected)) {
          return Promise.reject(new TypeError("wait: state differs from expectedState"));
        }
        expected = state;
      }
      if (expected === undefined) {
        return Promise.reject(new TypeError("wait: pass the state sent in the authorization request"));
      }
      if (held && !settled) {
        const { params, res } = held;
        held = undefined;
        answer(params, res, expected);
      }
      return outcome;
    },
    async close() {
      settle({ error: new LoopbackRedirectError("closed", "the redirect endpoint was closed") });
      stop();
      await closed;
    },
  };
}

/**
 * The HTTP benches' load client (bench/http.ts, bench/auth.ts): POSTs through an undici Pool's
 * dispatch() with bodies built as strings, responses parsed only as far as a check needs.
 */

import type { Pool } from "undici";

export const PROTOCOL_VERSION = "2025-11-25";
/** The MCP endpoint of every HTTP fixture. */
export const PATH = "/mcp";

export interface Message {
  id?: unknown;
  result?: { content?: { text?: unknown }[] };
  error?: { message?: string };
}

/** The JSON-RPC message in a response body: the body itself (JSON), or the first SSE data line holding one. */
export function messageOf(contentType: string, text: string, what: string): Message {
  if (contentType.startsWith("application/json")) return JSON.parse(text) as Message;
  // Skip a priming event (an id with empty data) and anything else that is not a JSON object.
  const at = text.indexOf("data: {");
  if (at < 0) throw new Error(`${what}: no message in the SSE body ${JSON.stringify(text.slice(0, 200))}`);
  const end = text.indexOf("\n", at);
  return JSON.parse(text.slice(at + 6, end < 0 ? undefined : end)) as Message;
}

export interface Post {
  status: number;
  contentType: string;
  sessionId: string | undefined;
  text: string;
}

/**
 * One POST through the pool's dispatch() with a callback handler: no response stream objects, the body
 * collected as Buffers and decoded once, of the headers only the two the bench reads.
 */
export function post(pool: Pool, headers: Record<string, string>, body: string): Promise<Post> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let contentType = "";
    let sessionId: string | undefined;
    const chunks: Buffer[] = [];
    pool.dispatch(
      { path: PATH, method: "POST", headers, body },
      {
        onConnect() {},
        onHeaders(statusCode, raw) {
          status = statusCode;
          for (let i = 0; i + 1 < raw.length; i += 2) {
            const name = raw[i]!.toString("latin1").toLowerCase();
            if (name === "content-type") contentType = raw[i + 1]!.toString("latin1");
            else if (name === "mcp-session-id") sessionId = raw[i + 1]!.toString("latin1");
          }
          return true;
        },
        onData(chunk) {
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const text =
            chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
          resolve({ status, contentType, sessionId, text });
        },
        onError: reject,
      },
    );
  });
}

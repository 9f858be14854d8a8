/** A real HTTP server on 127.0.0.1 for the auth tests: records each request, answers with a handler. */

import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
  /** The body read as a form (token endpoint requests). */
  readonly form: URLSearchParams;
}

export interface Answer {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
}

export interface HttpPeer {
  readonly url: string;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

export async function startPeer(
  answer: (request: SeenRequest, url: string) => Answer | Promise<Answer>,
): Promise<HttpPeer> {
  const seen: SeenRequest[] = [];
  let url = "";
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const request: SeenRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body,
      form: new URLSearchParams(body),
    };
    seen.push(request);
    try {
      const reply = await answer(request, url);
      res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
      res.end(reply.json === undefined ? "" : JSON.stringify(reply.json));
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

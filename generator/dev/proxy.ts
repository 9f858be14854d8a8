/**
 * The endpoint `dev` keeps up across restarts: it owns the public port on 127.0.0.1 and forwards each
 * request to the server child of the moment. While there is none (starting, crashed), requests wait up
 * to `holdMs` for one instead of being refused. Responses stream as they come (SSE included). The
 * child's Host and Origin checks still apply: a request for the public host:port is rewritten to the
 * child's; any other Host or Origin is passed on as sent, for the child to refuse.
 */

import { once } from "node:events";
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type Server,
  type ServerResponse,
} from "node:http";

export interface DevProxy {
  /** The public URL origin, `http://127.0.0.1:<port>`. */
  origin: string;
  port: number;
  /** The internal port requests go to from now on; undefined: hold them. */
  setTarget(port: number | undefined): void;
  close(): Promise<void>;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(`port ${port} on 127.0.0.1 is taken; pass --port <n> (or set PORT)`);
    this.name = "PortInUseError";
  }
}

export interface ProxyOptions {
  port: number;
  holdMs?: number;
  /** Largest request body forwarded (bodies are read whole, so a request can be retried). */
  maxBodyBytes?: number;
}

const json = (res: ServerResponse, status: number, message: string) => {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }));
};

export async function startProxy(options: ProxyOptions): Promise<DevProxy> {
  const holdMs = options.holdMs ?? 10_000;
  const maxBody = options.maxBodyBytes ?? 64 * 1024 * 1024;
  let target: number | undefined;
  let waiters: (() => void)[] = [];
  let publicHosts: string[] = [];
  let closed = false;

  /** The current target, waiting up to holdMs for one. */
  const current = async (): Promise<number | undefined> => {
    const deadline = Date.now() + holdMs;
    while (target === undefined) {
      if (closed) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return target;
  };

  const readBody = async (req: IncomingMessage): Promise<Buffer | undefined> => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBody) return undefined;
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  };

  const headersFor = (req: IncomingMessage, port: number): OutgoingHttpHeaders => {
    const headers: OutgoingHttpHeaders = { ...req.headers };
    const host = req.headers.host ?? "";
    if (publicHosts.includes(host)) {
      headers.host = `127.0.0.1:${port}`;
      const origin = req.headers.origin;
      if (origin !== undefined && URL.canParse(origin) && new URL(origin).host === host)
        headers.origin = `http://127.0.0.1:${port}`;
    }
    return headers;
  };

  /** Forwards once; resolves false when the child could not be reached before any answer. */
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, port: number) =>
    new Promise<boolean>((resolve) => {
      const upstream = request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: headersFor(req, port) },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
          res.flushHeaders();
          answer.pipe(res);
          answer.on("error", () => res.destroy());
          answer.on("end", () => resolve(true));
          answer.on("close", () => resolve(true));
        },
      );
      upstream.on("error", () => {
        if (!res.headersSent) resolve(false);
        else {
          res.destroy();
          resolve(true);
        }
      });
      // The client going away ends the forwarded request (an SSE stream held open, for instance).
      res.on("close", () => upstream.destroy());
      upstream.end(body);
    });

  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req).catch(() => undefined);
    if (body === undefined) return json(res, 413, "request body too large or unreadable");
    for (let attempt = 0; attempt < 2; attempt++) {
      const port = await current();
      if (port === undefined) return json(res, 503, "the server is not running (see the dev output)");
      if (await forward(req, res, body, port)) return;
      // The child went away between choosing it and connecting: once more, with whichever is current.
      if (target === port) target = undefined;
    }
    json(res, 502, "the server is restarting; retry");
  });
  server.listen(options.port, "127.0.0.1");
  await once(server, "listening").catch((e: NodeJS.ErrnoException) => {
    throw e.code === "EADDRINUSE" ? new PortInUseError(options.port) : e;
  });
  const port = (server.address() as { port: number }).port;
  publicHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    setTarget(next) {
      target = next;
      if (next === undefined) return;
      const ready = waiters;
      waiters = [];
      for (const wake of ready) wake();
    },
    close: () =>
      new Promise((resolve) => {
        closed = true;
        server.close(() => resolve());
        server.closeAllConnections();
        const ready = waiters;
        waiters = [];
        for (const wake of ready) wake();
      }),
  };
}

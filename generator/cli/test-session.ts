/**
 * The server under test, as a real process over stdio with this project's own client. A call that the
 * server leaves unanswered (timeout) or that ends with the process gone starts a fresh process for the
 * next call, so shrinking a failing input keeps talking to a live server.
 */

import { ErrorCode, McpError } from "@mcp-codegen/runtime";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { createClient, type McpClient } from "../../generated/2025-11-25/client.js";
import { GENERATOR_VERSION } from "../version.js";

export interface ServerCommand {
  command: string;
  args: string[];
}

/** What one `tools/call` came to: a result, or a JSON-RPC error (or a local one: timeout, exit). */
export type CallOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; code: number; message: string; data?: unknown }
  | { kind: "lost"; message: string };

export class ServerSession {
  #client: McpClient | undefined;
  #protocolVersion = "";

  constructor(
    readonly server: ServerCommand,
    readonly timeoutMs: number,
  ) {}

  /** The version negotiated by the last connection. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }

  /** Starts the server and shakes hands; rejects when it cannot be started or does not answer. */
  async connect(): Promise<McpClient> {
    if (this.#client) return this.#client;
    const client = createClient({
      info: { name: "mcp-codegen test", version: GENERATOR_VERSION },
      requestTimeoutMs: this.timeoutMs,
    });
    const transport = new StdioClientTransport({ command: this.server.command, args: this.server.args });
    const description = await client.connect(transport, { timeoutMs: this.timeoutMs });
    this.#protocolVersion = description.protocolVersion;
    this.#client = client;
    return client;
  }

  async listTools(): Promise<unknown[]> {
    const client = await this.connect();
    const tools: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>): Promise<CallOutcome> {
    let client: McpClient;
    try {
      client = await this.connect();
    } catch (e) {
      return { kind: "lost", message: `the server could not be started again: ${(e as Error).message}` };
    }
    try {
      const result = await client.callTool({ name, arguments: args }, { timeoutMs: this.timeoutMs });
      return { kind: "result", result: result as Record<string, unknown> };
    } catch (e) {
      const local =
        !(e instanceof McpError) ||
        e.code === ErrorCode.RequestTimeout ||
        e.code === ErrorCode.ConnectionClosed;
      if (local) {
        await this.close();
        return {
          kind: "lost",
          message:
            e instanceof McpError && e.code === ErrorCode.RequestTimeout
              ? `no answer within ${this.timeoutMs} ms`
              : `the connection ended: ${(e as Error).message}`,
        };
      }
      const error = e as McpError;
      return {
        kind: "error",
        code: error.code,
        message: error.message,
        ...(error.data === undefined ? {} : { data: error.data }),
      };
    }
  }

  /** Ends the server process (stdin closed, then signals). */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }
}

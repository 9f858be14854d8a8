/**
 * The server under test, as a real process over stdio with this project's own client. A call that the
 * server leaves unanswered (timeout: the client sends notifications/cancelled) or that ends with the
 * process gone starts a fresh process for the next call, so the next input meets a live server. A tool
 * call carries a progress token, so a tool's progress path runs as a client would drive it; the timeout
 * is the whole call's (progress does not extend it: a server reporting progress forever still ends).
 */

import { ErrorCode, McpError, REQUEST_CANCELLED } from "@mcp-codegen/runtime";
import type { ToolTask } from "@mcp-codegen/runtime/client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { createClient, type McpClient } from "../../../generated/2025-11-25/client.js";
import { GENERATOR_VERSION } from "../../util/version.js";
import { allPages, type Page } from "../list-pages.js";
import { createStatelessClient } from "./stateless-client.js";

/**
 * The client a session speaks: `handshake`, 2025-11-25's initialize (what the items are tested with);
 * `stateless`, 2026-07-28's server/discover, falling back to the handshake for an older server (what the
 * Skills extension's methods need).
 */
export type SessionEra = "handshake" | "stateless";

export interface ServerCommand {
  command: string;
  args: string[];
}

/**
 * What one call came to: a result; a JSON-RPC error; a result the protocol's own schema refuses (the
 * client checks every result it reads); or a local failure (timeout, exit).
 */
export type CallOutcome =
  | { kind: "result"; result: Record<string, unknown> }
  | { kind: "error"; code: number; message: string; data?: unknown }
  | { kind: "malformed"; message: string }
  | { kind: "lost"; message: string; timedOut?: true };

/** A request the generated client sends, given the client and the per-call options. */
type Send = (client: McpClient, options: CallOptions) => Promise<unknown>;

interface CallOptions {
  timeoutMs: number;
  /** Aborts when the whole call's time is up (a task's polls are requests of their own). */
  signal: AbortSignal;
  onprogress?: () => void;
}

export class ServerSession {
  #client: McpClient | undefined;
  #protocolVersion = "";
  #extensions: Record<string, unknown> = {};

  constructor(
    readonly server: ServerCommand,
    readonly timeoutMs: number,
    readonly era: SessionEra = "handshake",
  ) {}

  /** The version negotiated by the last connection. */
  get protocolVersion(): string {
    return this.#protocolVersion;
  }

  /** Starts the server and shakes hands; rejects when it cannot be started or does not answer. */
  async connect(): Promise<McpClient> {
    if (this.#client) return this.#client;
    const options = {
      info: { name: "mcp-codegen test", version: GENERATOR_VERSION },
      requestTimeoutMs: this.timeoutMs,
    };
    // Both are the runtime's client; the stateless one's typed methods are the same calls.
    const client = this.era === "stateless" ? createStatelessClient(options) : createClient(options);
    const transport = new StdioClientTransport({ command: this.server.command, args: this.server.args });
    const description = await client.connect(transport, { timeoutMs: this.timeoutMs });
    this.#protocolVersion = description.protocolVersion;
    const extensions = (description.capabilities as { extensions?: unknown }).extensions;
    this.#extensions =
      typeof extensions === "object" && extensions !== null ? (extensions as Record<string, unknown>) : {};
    this.#client = client;
    return client;
  }

  /** The extensions the server declared (`capabilities.extensions`) on the last connection. */
  get extensions(): Readonly<Record<string, unknown>> {
    return this.#extensions;
  }

  /** The connected client, for the runtime's own helpers (skills, Apps); started when needed. */
  client(): Promise<McpClient> {
    return this.connect();
  }

  /** `resources/directory/read` of `uri`, every page (the stateless session only). */
  async readDirectory(uri: string): Promise<Record<string, unknown>[]> {
    if (this.era !== "stateless") throw new Error("resources/directory/read needs the stateless session");
    const client = await this.connect();
    return (await client.readSkillDirectory(uri)) as unknown as Record<string, unknown>[];
  }

  listTools(): Promise<unknown[]> {
    return this.#list("tools/list", "tools", (c, p) => c.listTools(p));
  }

  listPrompts(): Promise<unknown[]> {
    return this.#list("prompts/list", "prompts", (c, p) => c.listPrompts(p));
  }

  listResources(): Promise<unknown[]> {
    return this.#list("resources/list", "resources", (c, p) => c.listResources(p));
  }

  listResourceTemplates(): Promise<unknown[]> {
    return this.#list("resources/templates/list", "resourceTemplates", (c, p) => c.listResourceTemplates(p));
  }

  /**
   * `timeoutMs`: this call's own limit (an item's `test.timeoutMs`), else the session's. `asTask`: the
   * call runs as a task, polled to its end within that time (a tool whose contract requires tasks).
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    timeoutMs = this.timeoutMs,
    asTask = false,
  ): Promise<CallOutcome> {
    return this.#call(
      "tools/call",
      (c, o) =>
        asTask
          ? c.callTool({ name, arguments: args }, { task: true, signal: o.signal, timeoutMs: o.timeoutMs })
          : c.callTool({ name, arguments: args }, { timeoutMs: o.timeoutMs, onprogress: () => {} }),
      timeoutMs,
    );
  }

  /** A tool call made as a task and held: the task, or what the call came to instead. */
  async startToolTask(
    name: string,
    args: Record<string, unknown>,
    timeoutMs = this.timeoutMs,
  ): Promise<{ kind: "task"; task: ToolTask } | CallOutcome> {
    let task: ToolTask | undefined;
    const outcome = await this.#call(
      "tools/call",
      async (c, o) => {
        task = await c.startToolTask({ name, arguments: args }, { timeoutMs: o.timeoutMs, signal: o.signal });
        return {};
      },
      timeoutMs,
    );
    return task ? { kind: "task", task } : outcome;
  }

  /** A held task's outcome (polled to its end), as the call would have answered. */
  taskResult(task: ToolTask, timeoutMs = this.timeoutMs): Promise<CallOutcome> {
    return this.#call("tools/call", (_c, o) => task.result({ signal: o.signal }), timeoutMs);
  }

  /** `tasks/get` of a held task: the task as the server describes it. */
  taskStatus(task: ToolTask, timeoutMs = this.timeoutMs): Promise<CallOutcome> {
    return this.#call("tasks/get", () => task.status() as Promise<never>, timeoutMs);
  }

  /** `tasks/cancel` of a held task: the task as the server left it. */
  taskCancel(task: ToolTask, timeoutMs = this.timeoutMs): Promise<CallOutcome> {
    return this.#call("tasks/cancel", () => task.cancel() as Promise<never>, timeoutMs);
  }

  getPrompt(name: string, args: Record<string, string>, timeoutMs = this.timeoutMs): Promise<CallOutcome> {
    return this.#call("prompts/get", (c, o) => c.getPrompt({ name, arguments: args }, o), timeoutMs);
  }

  readResource(uri: string, timeoutMs = this.timeoutMs): Promise<CallOutcome> {
    return this.#call("resources/read", (c, o) => c.readResource({ uri }, o), timeoutMs);
  }

  /** Every page of a list (bounded, cursors checked); rejects when a page fails. */
  async #list(
    method: string,
    key: string,
    page: (client: McpClient, params: { cursor?: string }) => Promise<unknown>,
  ) {
    const client = await this.connect();
    return allPages(method, key, (params) => page(client, params) as Promise<Page>);
  }

  async #call(method: string, send: Send, timeoutMs: number): Promise<CallOutcome> {
    let client: McpClient;
    try {
      client = await this.connect();
    } catch (e) {
      return { kind: "lost", message: `the server could not be started again: ${(e as Error).message}` };
    }
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      const result = await send(client, { timeoutMs, signal });
      return { kind: "result", result: result as Record<string, unknown> };
    } catch (e) {
      // A task's call aborted by the whole call's time running out (the client cancelled the task).
      if (signal.aborted && e instanceof McpError && e.code === REQUEST_CANCELLED)
        return { kind: "lost", message: `no answer within ${timeoutMs} ms`, timedOut: true };
      const local =
        !(e instanceof McpError) ||
        e.code === ErrorCode.RequestTimeout ||
        e.code === ErrorCode.ConnectionClosed;
      if (local) {
        await this.close();
        return e instanceof McpError && e.code === ErrorCode.RequestTimeout
          ? { kind: "lost", message: `no answer within ${timeoutMs} ms`, timedOut: true }
          : { kind: "lost", message: `the connection ended: ${(e as Error).message}` };
      }
      const error = e as McpError;
      // The client's own check of the result (runtime/mcp/check-errors.ts words it so): not a refusal.
      if (error.message.startsWith(`invalid ${method} result from the server`))
        return { kind: "malformed", message: error.message };
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

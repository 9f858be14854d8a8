/**
 * What a server that runs tools as tasks holds for it: the store, the runner, which tools may run as
 * tasks, how long tasks are kept, who owns a task, and the steps every era shares (creating a task,
 * reading one for its owner, waiting for it to end).
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { isAuthInfo } from "../mcp/auth-info.js";
import type { MessageBus } from "../mcp/message-bus.js";
import type { StateCaller } from "../mcp/round-binding.js";
import { reportedStoreError } from "../mcp/store-unavailable.js";
import {
  InMemoryTaskStore,
  isTerminal,
  type TaskOutcome,
  type TaskRecord,
  type TaskStore,
} from "../mcp/task-store.js";
import { wait } from "../util/timers.js";
import { publishTask, watchTask } from "./task-channel.js";
import { TaskResultWaits } from "./task-result-waits.js";
import { TaskRunner } from "./task-runner.js";
import type { TaskSupport, TaskTool, TaskToolDeclaration } from "./task-support.js";

/** The task options of a server (ServerOptions). */
export interface TaskOptions {
  /**
   * Where tasks are kept: `InMemoryTaskStore` by default (this instance only); instances behind a load
   * balancer share one (RedisTaskStore of `@mcp-codegen/redis`) and the `bus`.
   */
  taskStore?: TaskStore;
  /**
   * Tools that may (`optional`) or must (`required`) be called as tasks, by name, over what a served
   * contract declares (`execution: { taskSupport }`). A tool named nowhere runs only as a plain call.
   * List the same `execution.taskSupport` in your `tools/list` result: clients read it there.
   */
  taskTools?: Readonly<Record<string, TaskToolDeclaration>>;
  /** How long a task is kept when its creator asks for no TTL (default 10 minutes). */
  taskTtlMs?: number;
  /** The longest a task is kept, whatever its creator asks (default one hour; the least is 1 s). */
  maxTaskTtlMs?: number;
  /** The poll interval suggested to clients (default 1 s). */
  taskPollIntervalMs?: number;
  /**
   * How long a task's lease lasts without renewal (default 15 s, renewed every third of it): once an
   * instance running a task is gone this long, the task is reported failed.
   */
  taskLeaseMs?: number;
}

const DEFAULT_TTL_MS = 10 * 60_000;
const DEFAULT_MAX_TTL_MS = 60 * 60_000;
const MIN_TTL_MS = 1000;
const DEFAULT_POLL_MS = 1000;
const DEFAULT_LEASE_MS = 15_000;

export class ServerTasks {
  readonly store: TaskStore;
  readonly runner: TaskRunner;
  readonly defaultTtlMs: number;
  readonly maxTtlMs: number;
  readonly pollIntervalMs: number;
  readonly leaseMs: number;
  /** `tasks/result` requests waiting here, where a task's input goes (2025-11-25). */
  readonly resultWaits = new TaskResultWaits();

  constructor(
    options: TaskOptions,
    /** Tools that may run as tasks (task-support.ts). */
    readonly tools: ReadonlyMap<string, TaskTool>,
    readonly bus: MessageBus,
    private readonly caller: StateCaller,
    readonly report: (error: unknown) => void,
  ) {
    this.store = options.taskStore ?? new InMemoryTaskStore();
    this.maxTtlMs = Math.max(MIN_TTL_MS, options.maxTaskTtlMs ?? DEFAULT_MAX_TTL_MS);
    this.defaultTtlMs = this.clampTtl(options.taskTtlMs ?? DEFAULT_TTL_MS);
    this.pollIntervalMs = options.taskPollIntervalMs ?? DEFAULT_POLL_MS;
    this.leaseMs = options.taskLeaseMs ?? DEFAULT_LEASE_MS;
    this.runner = new TaskRunner({ store: this.store, bus, leaseMs: this.leaseMs, report });
  }

  /** Whether the tool `name` may or must be called as a task. */
  support(name: unknown): TaskSupport {
    return (typeof name === "string" ? this.tools.get(name)?.support : undefined) ?? "forbidden";
  }

  /** How long a 2026-07-28 call of the tool `name` runs as a plain request before it becomes a task. */
  graceMs(name: unknown): number {
    return (typeof name === "string" ? this.tools.get(name)?.graceMs : undefined) ?? 0;
  }

  /** The TTL a task gets: the one asked for (or the default), within [1 s, maxTaskTtlMs]. */
  clampTtl(requested: unknown): number {
    const asked =
      typeof requested === "number" && Number.isFinite(requested) ? Math.floor(requested) : this.defaultTtlMs;
    return Math.min(this.maxTtlMs, Math.max(MIN_TTL_MS, asked));
  }

  /**
   * Who owns a task the request creates or names: the authenticated subject (with its issuer, when the
   * token names one), else the session, else no one in particular (the task id alone is then the key).
   */
  ownerOf(rc: IncomingRequestContext, sessionId: string | undefined): string {
    const auth = rc.extra?.auth;
    if (auth !== undefined) {
      const issuer = isAuthInfo(auth) && auth.issuer ? `${auth.issuer}/` : "";
      return `sub:${issuer}${this.caller(auth)}`;
    }
    return sessionId ? `session:${sessionId}` : "anonymous";
  }

  /** A new working task held by this instance's runner, or the protocol error saying why not. */
  async create(owner: string, method: string, ttlMs: number): Promise<TaskRecord> {
    const created = await this.ask(() =>
      this.store.create({
        owner,
        method,
        ttlMs,
        pollIntervalMs: this.pollIntervalMs,
        holder: this.runner.holder,
        leaseMs: this.leaseMs,
      }),
    );
    if (!created.ok) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        created.reason === "owner-full"
          ? "Too many tasks: this client keeps as many as it may until some expire"
          : "Too many tasks: the server keeps as many as it may until some expire",
      );
    }
    return created.task;
  }

  /** The owner's task, or -32602 (unknown, expired and someone else's are one answer). */
  async get(taskId: unknown, owner: string): Promise<TaskRecord> {
    const task = typeof taskId === "string" ? await this.ask(() => this.store.get(taskId, owner)) : undefined;
    if (!task) throw notFound();
    return task;
  }

  /**
   * The owner's task once it is terminal: woken by its bus channel, re-read at its poll interval (a
   * message may be lost), until `signal` aborts (the request's own end).
   */
  async settled(taskId: unknown, owner: string, signal: AbortSignal): Promise<TaskRecord> {
    let task = await this.get(taskId, owner);
    if (isTerminal(task.status)) return task;
    let wake: (() => void) | undefined;
    const stop = await watchTask(this.bus, task.taskId, (seen) => {
      if (isTerminal(seen.status)) wake?.();
    });
    try {
      while (!isTerminal(task.status)) {
        await wait(task.pollIntervalMs ?? this.pollIntervalMs, signal, {
          onWake: (w) => {
            wake = w;
          },
          unref: true,
        });
        task = await this.get(task.taskId, owner);
      }
      return task;
    } finally {
      stop();
    }
  }

  /** The owner cancels its task (either era's `tasks/cancel`): stored, then published. */
  cancel(taskId: string, owner: string): Promise<TaskOutcome> {
    return this.#ownerChange(() => this.store.cancel(taskId, owner, "Cancelled by the client"));
  }

  /** The owner answers its task's input (`tasks/update`): stored, then published. */
  respond(taskId: string, owner: string, responses: Readonly<Record<string, unknown>>): Promise<TaskOutcome> {
    return this.#ownerChange(() => this.store.respond(taskId, owner, responses));
  }

  /** An owner's change: a change made is told every instance (the task's runner among them). */
  async #ownerChange(call: () => TaskOutcome | Promise<TaskOutcome>): Promise<TaskOutcome> {
    const outcome = await this.ask(call);
    if (outcome.ok) await publishTask(this.bus, outcome.task, this.report);
    return outcome;
  }

  /** A store call, its failure to answer made STORE_UNAVAILABLE (reported). */
  async ask<T>(call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw reportedStoreError(error, this.report);
    }
  }
}

/** What a task id that names no task of the caller's gets (unknown, expired, someone else's). */
export const notFound = (): McpError => new McpError(ErrorCode.InvalidParams, "Task not found or expired");

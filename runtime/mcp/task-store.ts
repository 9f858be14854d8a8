/**
 * Where long-running requests run as tasks keep their state: status, result or error, input they wait for,
 * who owns them and which runner holds them. Any instance answers a poll (`tasks/get`), a cancellation or
 * an answer to the task's input from the store; the instance running the handler (the runner) writes its
 * progress and outcome through it and holds a lease it renews. A task whose runner stopped renewing (its
 * instance died) is reported failed by every read, never left "working". The in-memory store serves one
 * process; a shared store (Redis) serves every instance of a server.
 */

import { McpError } from "../jsonrpc/messages.js";
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from "../util/base64.js";
import { messageOf } from "../util/errors.js";
import type { MaybePromise } from "../util/maybe-promise.js";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** Completed, failed and cancelled: a task in one of these never changes again. */
export const isTerminal = (status: TaskStatus): boolean =>
  status === "completed" || status === "failed" || status === "cancelled";

/** A JSON-RPC error object: what a failed task failed with. */
export interface TaskError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** The JSON-RPC error object a throw becomes: a protocol error (McpError) as it is, anything else -32603. */
export function taskErrorOf(error: unknown): TaskError {
  if (error instanceof McpError)
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  return { code: -32603, message: messageOf(error) };
}

/** What the store keeps of a task. Times are ms since the epoch (the wire shows them as ISO 8601). */
export interface TaskRecord {
  /** Unguessable (128 random bits): without an authorization context it is the only key. */
  readonly taskId: string;
  /** Who may read, answer and cancel it: an authenticated subject, else a session, else a client key. */
  readonly owner: string;
  /** The request it answers ("tools/call"). */
  readonly method: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Kept this long from `createdAt`, whatever its status; then it is gone. */
  readonly ttlMs: number;
  readonly pollIntervalMs?: number;
  /** Completed: the result of the request it answers (a tool's `isError` result is completed too). */
  readonly result?: Record<string, unknown>;
  /** Failed: the JSON-RPC error the request ended with. */
  readonly error?: TaskError;
  /** Input the task waits for (status input_required), by key; a key is never reused within a task. */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  /** Input the owner gave, by the key it answers, for the runner to take. */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The runner holding it and until when (ms), while it is not terminal. */
  readonly lease?: { readonly holder: string; readonly until: number };
}

/** What a new task starts with; the store adds its id, status (working) and times. */
export interface TaskInit {
  readonly owner: string;
  readonly method: string;
  /** Decided by the caller (the server's default and maximum); finite: a store never keeps a task forever. */
  readonly ttlMs: number;
  readonly pollIntervalMs?: number;
  readonly statusMessage?: string;
  /** The runner that will run it (an instance id) and its first lease. */
  readonly holder: string;
  readonly leaseMs: number;
}

/** The runner's changes while a task runs: not terminal ones (see `finish`). */
export interface TaskUpdate {
  readonly status?: "working" | "input_required";
  readonly statusMessage?: string;
  /** Input to ask for: added to the outstanding requests (keys new to the task). */
  readonly inputRequests?: Readonly<Record<string, unknown>>;
  readonly pollIntervalMs?: number;
}

/** How a task ends, as its runner reports it. */
export type TaskEnd =
  | {
      readonly status: "completed";
      readonly result: Record<string, unknown>;
      readonly statusMessage?: string;
    }
  | { readonly status: "failed"; readonly error: TaskError; readonly statusMessage?: string }
  | { readonly status: "cancelled"; readonly statusMessage?: string };

export type TaskCreation =
  | { readonly ok: true; readonly task: TaskRecord }
  /** The store holds its `maxTasks`, or the owner its `maxTasksPerOwner` (expired tasks do not count). */
  | { readonly ok: false; readonly reason: "full" | "owner-full" };

/** A change's outcome: done, or refused without changing anything. */
export type TaskOutcome =
  | { readonly ok: true; readonly task: TaskRecord }
  /** No such task for this owner (or holder): never there, expired, or someone else's. */
  | { readonly ok: false; readonly reason: "unknown" }
  /** Already completed, failed or cancelled: terminal states are final. */
  | { readonly ok: false; readonly reason: "terminal"; readonly task: TaskRecord }
  /** Held by another runner (runner-side changes only). */
  | { readonly ok: false; readonly reason: "not-holder"; readonly task: TaskRecord };

export interface TaskPage {
  readonly tasks: TaskRecord[];
  readonly nextCursor?: string;
}

export interface TaskListOptions {
  /** From the previous page's `nextCursor`; a cursor this store did not make is -32602. */
  cursor?: string | undefined;
  /** Tasks a page holds (default 50). */
  limit?: number;
}

/**
 * Tasks by id. Owner-side operations (`get`, `list`, `cancel`, `respond`) see only the owner's tasks;
 * runner-side ones (`update`, `finish`, `renew`) name the holder. Every read and change first settles a
 * task whose lease lapsed (failed with `LEASE_LAPSED`) and forgets tasks past their TTL. A store that
 * cannot answer throws an error with status 503 (see store-unavailable.ts).
 */
export interface TaskStore {
  /** A new task, working, stored before this resolves (so a `get` anywhere finds it), or why not. */
  create(init: TaskInit): MaybePromise<TaskCreation>;
  /** The owner's task, or undefined (unknown, expired, or another owner's: the same answer). */
  get(taskId: string, owner: string): MaybePromise<TaskRecord | undefined>;
  /** The owner's tasks, oldest first, a page at a time. */
  list(owner: string, options?: TaskListOptions): MaybePromise<TaskPage>;
  /** The runner's change of status, message or input asked for; refused once terminal. */
  update(taskId: string, holder: string, change: TaskUpdate): MaybePromise<TaskOutcome>;
  /** The runner's outcome; refused once terminal (the first end wins: a cancelled task stays cancelled). */
  finish(taskId: string, holder: string, end: TaskEnd): MaybePromise<TaskOutcome>;
  /**
   * The owner cancels: the task is cancelled at once (terminal); its runner learns it on its next `renew`.
   * Refused for a terminal task.
   */
  cancel(taskId: string, owner: string, statusMessage?: string): MaybePromise<TaskOutcome>;
  /**
   * The owner answers input: responses to outstanding keys move from `inputRequests` to `inputResponses`
   * (other keys are ignored); once none is outstanding an input_required task is working again.
   */
  respond(
    taskId: string,
    owner: string,
    responses: Readonly<Record<string, unknown>>,
  ): MaybePromise<TaskOutcome>;
  /**
   * The runner keeps its lease: extended to `leaseMs` from now while it holds a task that is not
   * terminal. Answers the task as it stands (cancelled, answered input), undefined once it is gone: how a
   * runner on any instance learns of a cancellation.
   */
  renew(taskId: string, holder: string, leaseMs: number): MaybePromise<TaskRecord | undefined>;
  /** Optional: whether the store can serve now (a readiness probe asks; absent: always). */
  healthy?(): MaybePromise<boolean>;
}

/** What a task whose runner stopped renewing its lease failed with (its instance died or hung). */
export const LEASE_LAPSED: TaskError = Object.freeze({
  code: -32603,
  message: "The task's runner stopped: the instance running it went away before it finished",
});

/** A new task id: 128 random bits, base64url. */
export const newTaskId = (): string => toBase64Url(crypto.getRandomValues(new Uint8Array(16)));

type TaskKey = Pick<TaskRecord, "createdAt" | "taskId">;

/** Tasks are listed by creation, ties by id; a cursor names the last one a page held. */
export const compareTasks = (a: TaskKey, b: TaskKey): number =>
  a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);

const CURSOR_PREFIX = "mcpt1.";

/** Opaque list cursors, one format for every store: the (createdAt, taskId) a page ended with. */
export const taskCursor = {
  encode: (task: TaskKey): string =>
    CURSOR_PREFIX + toBase64Url(utf8Bytes(JSON.stringify([task.createdAt, task.taskId]))),
  decode(cursor: string): TaskKey {
    const bytes = cursor.startsWith(CURSOR_PREFIX)
      ? fromBase64Url(cursor.slice(CURSOR_PREFIX.length))
      : undefined;
    try {
      const [createdAt, taskId] = bytes ? (JSON.parse(utf8Text(bytes)) as unknown[]) : [];
      if (Number.isSafeInteger(createdAt) && typeof taskId === "string")
        return { createdAt: createdAt as number, taskId };
    } catch {
      // falls through to the protocol error
    }
    throw new McpError(-32602, "Invalid cursor");
  },
} as const;

/** Default bounds of the in-memory store. */
const DEFAULT_MAX_TASKS = 10_000;
const DEFAULT_MAX_TASKS_PER_OWNER = 100;
export const DEFAULT_TASK_PAGE = 50;

export interface TaskStoreLimits {
  /** Tasks kept at once, all owners (default 10,000). */
  maxTasks?: number;
  /** Tasks one owner keeps at once (default 100). */
  maxTasksPerOwner?: number;
}

export interface InMemoryTaskStoreOptions extends TaskStoreLimits {
  now?: () => number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Held = Mutable<TaskRecord>;

/**
 * The tasks of one process in a Map; each owner's ids in a Set. Expired tasks go as they are met and,
 * when a bound is reached, in one sweep. Records handed out are copies: a caller's change stays its own.
 */
export class InMemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Held>();
  readonly #byOwner = new Map<string, Set<string>>();
  readonly #maxTasks: number;
  readonly #maxPerOwner: number;
  readonly #now: () => number;

  constructor(options: InMemoryTaskStoreOptions = {}) {
    this.#maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.#maxPerOwner = options.maxTasksPerOwner ?? DEFAULT_MAX_TASKS_PER_OWNER;
    this.#now = options.now ?? Date.now;
  }

  /** Tasks held, expired ones included until they are met (tests, metrics). */
  get size(): number {
    return this.#tasks.size;
  }

  create(init: TaskInit): TaskCreation {
    const now = this.#now();
    const ownerCount = () => this.#byOwner.get(init.owner)?.size ?? 0;
    if (this.#tasks.size >= this.#maxTasks || ownerCount() >= this.#maxPerOwner) this.#sweep(now);
    if (this.#tasks.size >= this.#maxTasks) return { ok: false, reason: "full" };
    if (ownerCount() >= this.#maxPerOwner) return { ok: false, reason: "owner-full" };
    const task: Held = {
      taskId: newTaskId(),
      owner: init.owner,
      method: init.method,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: init.ttlMs,
      lease: { holder: init.holder, until: now + init.leaseMs },
    };
    if (init.statusMessage !== undefined) task.statusMessage = init.statusMessage;
    if (init.pollIntervalMs !== undefined) task.pollIntervalMs = init.pollIntervalMs;
    this.#tasks.set(task.taskId, task);
    const owned = this.#byOwner.get(init.owner) ?? new Set<string>();
    owned.add(task.taskId);
    this.#byOwner.set(init.owner, owned);
    return { ok: true, task: copy(task) };
  }

  get(taskId: string, owner: string): TaskRecord | undefined {
    const task = this.#live(taskId, this.#now());
    return task?.owner === owner ? copy(task) : undefined;
  }

  list(owner: string, options: TaskListOptions = {}): TaskPage {
    const after = options.cursor === undefined ? undefined : taskCursor.decode(options.cursor);
    const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_TASK_PAGE));
    const now = this.#now();
    const mine: Held[] = [];
    for (const id of [...(this.#byOwner.get(owner) ?? [])]) {
      const task = this.#live(id, now);
      if (task) mine.push(task);
    }
    mine.sort(compareTasks);
    let start = 0;
    if (after !== undefined) {
      start = mine.findIndex((task) => compareTasks(task, after) > 0);
      if (start < 0) start = mine.length;
    }
    const page = mine.slice(start, start + limit);
    const more = start + limit < mine.length;
    return {
      tasks: page.map(copy),
      ...(more ? { nextCursor: taskCursor.encode(page[page.length - 1]!) } : {}),
    };
  }

  update(taskId: string, holder: string, change: TaskUpdate): TaskOutcome {
    return this.#asRunner(taskId, holder, (task, now) => {
      if (change.inputRequests !== undefined)
        task.inputRequests = { ...task.inputRequests, ...change.inputRequests };
      if (change.status !== undefined) task.status = change.status;
      if (change.statusMessage !== undefined) task.statusMessage = change.statusMessage;
      if (change.pollIntervalMs !== undefined) task.pollIntervalMs = change.pollIntervalMs;
      task.lastUpdatedAt = now;
    });
  }

  finish(taskId: string, holder: string, end: TaskEnd): TaskOutcome {
    return this.#asRunner(taskId, holder, (task, now) => settle(task, end, now));
  }

  cancel(taskId: string, owner: string, statusMessage?: string): TaskOutcome {
    return this.#asOwner(taskId, owner, (task, now) =>
      settle(task, { status: "cancelled", ...(statusMessage !== undefined ? { statusMessage } : {}) }, now),
    );
  }

  respond(taskId: string, owner: string, responses: Readonly<Record<string, unknown>>): TaskOutcome {
    return this.#asOwner(taskId, owner, (task, now) => {
      const outstanding = { ...task.inputRequests };
      const answered = { ...task.inputResponses };
      let changed = false;
      for (const [key, response] of Object.entries(responses)) {
        if (!Object.hasOwn(outstanding, key)) continue;
        delete outstanding[key];
        answered[key] = response;
        changed = true;
      }
      if (!changed) return;
      if (Object.keys(outstanding).length === 0) delete task.inputRequests;
      else task.inputRequests = outstanding;
      task.inputResponses = answered;
      if (task.status === "input_required" && task.inputRequests === undefined) task.status = "working";
      task.lastUpdatedAt = now;
    });
  }

  renew(taskId: string, holder: string, leaseMs: number): TaskRecord | undefined {
    const now = this.#now();
    const task = this.#live(taskId, now);
    if (!task) return undefined;
    if (!isTerminal(task.status) && task.lease?.holder === holder)
      task.lease = { holder, until: now + leaseMs };
    return copy(task);
  }

  healthy(): boolean {
    return true;
  }

  /** The task if it has not expired (else forgotten), a lapsed lease settled as failed. */
  #live(taskId: string, now: number): Held | undefined {
    const task = this.#tasks.get(taskId);
    if (!task) return undefined;
    if (now >= task.createdAt + task.ttlMs) {
      this.#forget(task);
      return undefined;
    }
    if (!isTerminal(task.status) && task.lease !== undefined && task.lease.until < now)
      settle(task, { status: "failed", error: LEASE_LAPSED, statusMessage: LEASE_LAPSED.message }, now);
    return task;
  }

  #asOwner(taskId: string, owner: string, change: (task: Held, now: number) => void): TaskOutcome {
    const now = this.#now();
    const task = this.#live(taskId, now);
    if (task?.owner !== owner) return { ok: false, reason: "unknown" };
    if (isTerminal(task.status)) return { ok: false, reason: "terminal", task: copy(task) };
    change(task, now);
    return { ok: true, task: copy(task) };
  }

  #asRunner(taskId: string, holder: string, change: (task: Held, now: number) => void): TaskOutcome {
    const now = this.#now();
    const task = this.#live(taskId, now);
    if (!task) return { ok: false, reason: "unknown" };
    if (isTerminal(task.status)) return { ok: false, reason: "terminal", task: copy(task) };
    if (task.lease?.holder !== holder) return { ok: false, reason: "not-holder", task: copy(task) };
    change(task, now);
    return { ok: true, task: copy(task) };
  }

  #forget(task: TaskRecord): void {
    this.#tasks.delete(task.taskId);
    const owned = this.#byOwner.get(task.owner);
    owned?.delete(task.taskId);
    if (owned?.size === 0) this.#byOwner.delete(task.owner);
  }

  #sweep(now: number): void {
    for (const task of [...this.#tasks.values()]) if (now >= task.createdAt + task.ttlMs) this.#forget(task);
  }
}

/** Ends a task: its terminal status and outcome; no lease, no input outstanding. */
function settle(task: Held, end: TaskEnd, now: number): void {
  task.status = end.status;
  if (end.statusMessage !== undefined) task.statusMessage = end.statusMessage;
  if (end.status === "completed") task.result = end.result;
  if (end.status === "failed") task.error = end.error;
  delete task.lease;
  delete task.inputRequests;
  task.lastUpdatedAt = now;
}

const copy = (task: TaskRecord): TaskRecord => ({
  ...task,
  ...(task.lease ? { lease: { ...task.lease } } : {}),
  ...(task.inputRequests ? { inputRequests: { ...task.inputRequests } } : {}),
  ...(task.inputResponses ? { inputResponses: { ...task.inputResponses } } : {}),
});

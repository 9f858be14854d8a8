/**
 * Runs requests as tasks: each handler detached from the request that created its task, its progress and
 * outcome written to the TaskStore. One runner per server instance; its `holder` id names the instance in
 * the lease of every task it runs. While a task runs, the lease is renewed every `leaseMs / 3`: a renewal
 * also answers the record as it stands, which is how a cancel made on any instance reaches the runner
 * even when the bus drops the message that tells it sooner. The work's `signal` aborts on a cancel, on a
 * lost lease (the task settled failed by another instance, or gone), and on the server closing (the task
 * then ends failed: a drain never leaves one working).
 */

import type { MessageBus } from "../mcp/message-bus.js";
import {
  isTerminal,
  newTaskId,
  type TaskEnd,
  type TaskError,
  type TaskRecord,
  type TaskStore,
  type TaskUpdate,
  taskErrorOf,
} from "../mcp/task-store.js";
import { messageOf } from "../util/errors.js";
import { unref } from "../util/timers.js";
import { publishTask, watchTask } from "./task-channel.js";

/** What a task whose server closed before it finished fails with. */
export const SERVER_CLOSED: TaskError = Object.freeze({
  code: -32603,
  message: "The server running the task closed before it finished",
});

/** Why a running task's signal aborted. */
export type TaskAbort = "cancelled" | "lease-lost" | "closing";

/** What the work of a task is handed. */
export interface RunningTask {
  readonly taskId: string;
  /** Aborts on a cancel, a lost lease, the server closing; `reason` is a TaskAbort. */
  readonly signal: AbortSignal;
  /** A change of status, message or input asked for: stored, then published. Undefined once it may not. */
  update(change: TaskUpdate): Promise<TaskRecord | undefined>;
  /** The next record this runner sees for the task (a renewal, a message on its channel). */
  nextChange(): Promise<TaskRecord>;
}

/** Runs a task: resolves to how it ended (a throw is a failure with the error thrown). */
export type TaskWork = (task: RunningTask) => Promise<TaskEnd>;

export interface TaskRunnerOptions {
  store: TaskStore;
  bus: MessageBus;
  /** How long a lease lasts without renewal; renewed every third of it. */
  leaseMs: number;
  report: (error: unknown) => void;
}

export class TaskRunner {
  /** This instance, as the holder of the leases it takes. */
  readonly holder = newTaskId();
  readonly #running = new Map<string, Running>();

  constructor(readonly options: TaskRunnerOptions) {}

  /** Tasks running here now. */
  get size(): number {
    return this.#running.size;
  }

  /**
   * Runs `work` for `task` (created with this runner's holder and lease); `seen` is told each new record
   * of the task this runner learns of (its own changes and others'), for status notifications.
   */
  start(task: TaskRecord, work: TaskWork, seen?: (task: TaskRecord) => void): void {
    const running = new Running(this, task, seen);
    this.#running.set(task.taskId, running);
    void running.run(work).finally(() => this.#running.delete(task.taskId));
  }

  /**
   * Waits up to `timeoutMs` for the tasks running here to end, then aborts the rest and records them
   * failed (SERVER_CLOSED), so that no task is left working when this instance goes.
   */
  async close(timeoutMs: number): Promise<void> {
    const all = [...this.#running.values()];
    if (all.length === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.all(all.map((r) => r.done)), waited]);
    clearTimeout(timer);
    await Promise.all([...this.#running.values()].map((r) => r.close()));
  }
}

class Running implements RunningTask {
  readonly taskId: string;
  readonly #controller = new AbortController();
  readonly #runner: TaskRunner;
  readonly #seen: ((task: TaskRecord) => void) | undefined;
  #last: TaskRecord;
  #timer: ReturnType<typeof setInterval> | undefined;
  #unwatch: Promise<() => void> | undefined;
  #waiters: ((task: TaskRecord) => void)[] = [];
  #ended = false;
  done: Promise<void> = Promise.resolve();

  constructor(runner: TaskRunner, task: TaskRecord, seen?: (task: TaskRecord) => void) {
    this.#runner = runner;
    this.taskId = task.taskId;
    this.#last = task;
    this.#seen = seen;
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  run(work: TaskWork): Promise<void> {
    const { store, bus, leaseMs, report } = this.#runner.options;
    const holder = this.#runner.holder;
    this.#unwatch = watchTask(bus, this.taskId, (task) => this.#learn(task));
    this.#unwatch.catch(report);
    this.#timer = setInterval(
      () => {
        Promise.resolve(store.renew(this.taskId, holder, leaseMs)).then(
          (task) => this.#learn(task),
          // A store that cannot answer now: the lease holds until it lapses, the next renewal may do.
          report,
        );
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    unref(this.#timer);
    this.done = (async () => {
      let end: TaskEnd;
      try {
        end = await work(this);
      } catch (error) {
        end = { status: "failed", error: taskErrorOf(error), statusMessage: messageOf(error) };
      }
      if (!this.#ended) await this.#finish(end);
      this.#stop();
    })();
    return this.done;
  }

  async update(change: TaskUpdate): Promise<TaskRecord | undefined> {
    if (this.#ended || this.signal.aborted) return undefined;
    const { store } = this.#runner.options;
    const outcome = await store.update(this.taskId, this.#runner.holder, change);
    if (!outcome.ok) {
      this.#learn(outcome.reason === "unknown" ? undefined : outcome.task);
      return undefined;
    }
    await this.#publish(outcome.task);
    return outcome.task;
  }

  nextChange(): Promise<TaskRecord> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** The server closes: the work is aborted and the task recorded failed at once. */
  async close(): Promise<void> {
    this.#controller.abort("closing" satisfies TaskAbort);
    if (this.#ended) return;
    await this.#finish({ status: "failed", error: SERVER_CLOSED, statusMessage: SERVER_CLOSED.message });
    this.#stop();
  }

  async #finish(end: TaskEnd): Promise<void> {
    this.#ended = true;
    const { store, report } = this.#runner.options;
    try {
      const outcome = await store.finish(this.taskId, this.#runner.holder, end);
      // Refused: cancelled, or settled failed by another instance; the first end stands.
      if (outcome.ok) await this.#publish(outcome.task);
    } catch (error) {
      // The lease lapses and every read then reports the task failed.
      report(error);
    }
  }

  async #publish(task: TaskRecord): Promise<void> {
    this.#learn(task);
    await publishTask(this.#runner.options.bus, task, this.#runner.options.report);
  }

  /** A record of the task, from this runner's own change, a renewal or the bus (undefined: gone). */
  #learn(task: TaskRecord | undefined): void {
    if (task !== undefined && task.lastUpdatedAt >= this.#last.lastUpdatedAt) {
      const changed = signature(task) !== signature(this.#last);
      this.#last = task;
      if (changed) this.#tell(task);
    }
    if (this.signal.aborted || this.#ended) return;
    const current = this.#last;
    if (task === undefined) this.#controller.abort("lease-lost" satisfies TaskAbort);
    else if (current.status === "cancelled") this.#controller.abort("cancelled" satisfies TaskAbort);
    else if (isTerminal(current.status) || current.lease?.holder !== this.#runner.holder)
      this.#controller.abort("lease-lost" satisfies TaskAbort);
  }

  #tell(task: TaskRecord): void {
    try {
      this.#seen?.(task);
    } catch (error) {
      this.#runner.options.report(error);
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake(task);
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#unwatch?.then(
      (stop) => stop(),
      () => {},
    );
  }
}

/** What a record's watchers care about: a record with another signature is news to them. */
const signature = (task: TaskRecord): string =>
  JSON.stringify([
    task.status,
    task.lastUpdatedAt,
    task.statusMessage,
    Object.keys(task.inputRequests ?? {}),
    Object.keys(task.inputResponses ?? {}),
  ]);

/** A server run as a child process: starting it, knowing it runs, and stopping it for sure. */

import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

/** A child whose stdin and stdout are pipes; its stderr is one only when asked for. */
export type Child = ChildProcessByStdio<Writable, Readable, Readable | null>;

export interface ChildCommand {
  command: string;
  args?: string[];
  /** The child's whole environment; by default it inherits this process's. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  stderr?: "inherit" | "pipe" | "ignore";
}

/** Starts `command`. No shell: arguments reach the child verbatim. stdin and stdout are always pipes. */
export function spawnChild({ command, args = [], env, cwd, stderr = "inherit" }: ChildCommand): Child {
  // Loaded here rather than imported: a server process, which only uses stdin/stdout, never needs it.
  const { spawn } = process.getBuiltinModule("node:child_process");
  return spawn(command, args, {
    env,
    cwd,
    stdio: ["pipe", "pipe", stderr],
    windowsHide: true,
  }) as Child;
}

/** Resolves once the child is running; rejects naming the command when it could not be started. */
export function spawned(child: Child, command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onSpawn = () => {
      child.off("error", onError);
      resolve();
    };
    const onError = (error: Error) => {
      child.off("spawn", onSpawn);
      reject(new Error(`Failed to start "${command}": ${error.message}`, { cause: error }));
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
}

/**
 * Ends the child's stdin, then escalates to SIGTERM and SIGKILL, waiting `wait` ms at each step; resolves
 * once it has exited and its pipes have closed. `exited` and `stdioClosed` are made at spawn, since the
 * child may end before anyone stops it.
 */
export async function stopChild(
  child: Child,
  exited: Promise<void>,
  stdioClosed: Promise<void>,
  wait: number,
): Promise<void> {
  child.stdin.end();
  if (!(await settlesWithin(exited, wait))) {
    child.kill("SIGTERM");
    if (!(await settlesWithin(exited, wait))) {
      child.kill("SIGKILL");
      await exited;
    }
  }
  // A grandchild may still hold the pipes open; stop waiting for it after one more period.
  if (!(await settlesWithin(stdioClosed, wait))) {
    child.stdout.destroy();
    child.stderr?.destroy();
  }
  await stdioClosed;
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

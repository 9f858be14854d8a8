/**
 * One run of the user's server for `dev`: a node child on a bundle, serving HTTP on an internal port of
 * 127.0.0.1. Ready once that port accepts a connection; stopped with SIGTERM (the scaffold answers calls
 * in flight, then exits), SIGKILL if it has not exited after `graceMs`.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect, createServer } from "node:net";
import { createInterface } from "node:readline";

export interface ServerProcess {
  port: number;
  child: ChildProcess;
  /** Resolves when the child exits, with its exit code or signal. */
  exited: Promise<string>;
  stop(graceMs?: number): Promise<void>;
}

/** A port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

export interface StartOptions {
  /** The bundle to run. */
  main: string;
  args: readonly string[];
  /** Flags for node before the script (conditions, source maps). */
  nodeFlags: readonly string[];
  cwd: string;
  port: number;
  /** Variables set for the child beside PORT (over dev's own environment). */
  env?: Readonly<Record<string, string>>;
  readyTimeoutMs?: number;
  /** Where the child's stderr goes, line by line (its stdout is dev's). */
  onStderr(line: string): void;
}

/** Starts the server; rejects (the child killed) if it exits or does not listen within the timeout. */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...options.nodeFlags, options.main, ...options.args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(options.port) },
    stdio: ["ignore", "inherit", "pipe"],
  });
  createInterface({ input: child.stderr!, crlfDelay: Number.POSITIVE_INFINITY }).on("line", options.onStderr);
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? `exit code ${code}`));
    child.once("error", (e) => resolve(e.message));
  });
  let gone: string | undefined;
  void exited.then((how) => {
    gone = how;
  });
  const stop = async (graceMs = 5000) => {
    if (gone !== undefined) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const deadline = performance.now() + (options.readyTimeoutMs ?? 10_000);
  while (!(await accepts(options.port))) {
    if (gone !== undefined) throw new Error(`the server exited before listening (${gone})`);
    if (performance.now() > deadline) {
      await stop(0);
      throw new Error(
        `the server did not listen on port ${options.port} within ${options.readyTimeoutMs ?? 10_000} ms (dev passes it in PORT: does the entry read it?)`,
      );
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  return { port: options.port, child, exited, stop };
}

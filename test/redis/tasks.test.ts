/**
 * 2025-11-25 core tasks served by two instances sharing a real redis-server (RedisTaskStore, the
 * RedisMessageBus, RedisSessionStore: test/fixtures/tasks/task-server.ts as two child processes), driven
 * by the official SDK v1 client whose every HTTP request goes to the other instance in turn: a 3-second
 * task polled to completion on both, cancelled from the instance not running it (its handler sees the
 * abort), its result fetched after the client reconnected, expired after its TTL, refused to another
 * subject, and the instance running a task killed (the next poll, on the survivor, says failed).
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema, CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 1500;

interface Instance {
  name: string;
  url: string;
  child: ChildProcessWithoutNullStreams;
  stderr: string[];
}

async function startInstance(name: string, redisUrl: string, prefix: string): Promise<Instance> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--conditions=mcp-codegen-source",
      `${REPO}test/fixtures/tasks/task-server.ts`,
      "http",
    ],
    {
      cwd: REPO,
      env: {
        ...process.env,
        MCP_TASK_NAME: name,
        MCP_TASK_REDIS: redisUrl,
        MCP_TASK_PREFIX: prefix,
        MCP_TASK_LEASE_MS: String(LEASE_MS),
      },
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  const stderr: string[] = [];
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => void stderr.push(d));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${stderr.join("")}`)), 30_000);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
      const ready = /ready (\S+)/.exec(out);
      if (!ready) return;
      clearTimeout(timer);
      resolve(ready[1]!);
    });
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}): ${stderr.join("")}`)));
  });
  return { name, url, child, stderr };
}

describe.skipIf(withoutRedis)(redisSuite("core tasks on two instances sharing Redis"), () => {
  let redis: TestRedis;
  let instances: Instance[];
  const clients: Client[] = [];
  beforeAll(async () => {
    redis = await startRedis();
    const prefix = `tasks-${randomUUID()}:`;
    instances = await Promise.all([
      startInstance("A", redis.url, prefix),
      startInstance("B", redis.url, prefix),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    for (const instance of instances ?? []) instance.child.kill("SIGKILL");
    await redis?.dispose();
  });

  /** A client whose requests go to A, B, A, … (`served` records who got each). */
  async function connect(options: { user?: string; sessionId?: string } = {}) {
    let next = 0;
    const served: string[] = [];
    const live = () => instances.filter((i) => i.child.exitCode === null && i.child.signalCode === null);
    const fetchNext: typeof fetch = async (input, init) => {
      const pool = live();
      const target = pool[next++ % pool.length]!;
      const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
      url.host = new URL(target.url).host;
      served.push(target.name);
      return fetch(url, init);
    };
    const client = new Client({ name: "sdk-v1-tasks-redis", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(instances[0]!.url), {
      fetch: fetchNext,
      ...(options.user ? { requestInit: { headers: { "x-user": options.user } } } : {}),
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
    });
    await client.connect(transport);
    clients.push(client);
    /** The instance the client's next request goes to. */
    const upNext = () => live()[next % live().length]!.name;
    return { client, transport, served, upNext };
  }

  const createTask = (client: Client, args: Record<string, unknown>, ttl?: number) =>
    client.request(
      {
        method: "tools/call",
        params: { name: "slow_compute", arguments: args, task: ttl === undefined ? {} : { ttl } },
      },
      CreateTaskResultSchema,
    );

  it("polls a 3-second task to completion through both instances", async () => {
    const { client, served } = await connect();
    const started = Date.now();
    const polled: string[] = [];
    let result: unknown;
    for await (const message of client.experimental.tasks.callToolStream(
      { name: "slow_compute", arguments: { seconds: 3, label: "shared" } },
      CallToolResultSchema,
      { task: { ttl: 60_000 } },
    )) {
      if (message.type === "taskStatus") polled.push(message.task.statusMessage ?? message.task.status);
      if (message.type === "result") result = message.result;
      if (message.type === "error") throw message.error;
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(new Set(served)).toEqual(new Set(["A", "B"]));
    const runner = /done on (\w)/.exec((result as { content: { text: string }[] }).content[0]!.text)![1];
    // Every poll, on either instance, saw the runner's progress.
    expect(polled.filter((m) => m.endsWith(`on ${runner}`)).length).toBeGreaterThan(5);
  });

  it("cancels from the instance not running the task: the runner's handler sees the abort", async () => {
    const clientAndTurn = await connect();
    const { client } = clientAndTurn;
    const { task } = await createTask(client, { seconds: 6, label: "cross-cancel" });
    await sleep(400);
    const before = await client.experimental.tasks.getTask(task.taskId);
    const runner = instances.find((i) => before.statusMessage?.endsWith(`on ${i.name}`))!;
    expect(runner).toBeDefined();
    const { upNext } = clientAndTurn;
    if (upNext() === runner.name) await client.experimental.tasks.getTask(task.taskId);
    expect(upNext()).not.toBe(runner.name);
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe("cancelled");
    for (let i = 0; i < 60 && !runner.stderr.join("").includes("ABORTED cross-cancel"); i++) await sleep(50);
    expect(runner.stderr.join("")).toContain("ABORTED cross-cancel");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe("cancelled");
  });

  it("fetches the result after the client reconnected, and forgets the task after its TTL", async () => {
    const first = await connect();
    const { task } = await createTask(first.client, { seconds: 0.5, label: "later" }, 2000);
    const sessionId = first.transport.sessionId!;
    await first.client.close();
    const again = await connect({ sessionId });
    const result = await again.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.content[0]).toMatchObject({ text: expect.stringMatching(/^later done on [AB]$/) });
    await sleep(2100);
    await expect(again.client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(again.client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("refuses another subject's task on either instance", async () => {
    const alice = await connect({ user: "alice" });
    const bob = await connect({ user: "bob" });
    const { task } = await createTask(alice.client, { seconds: 0.3, label: "alice" });
    for (let i = 0; i < 2; i++)
      await expect(bob.client.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({
        code: -32602,
      });
    expect((await bob.client.experimental.tasks.listTasks()).tasks).toEqual([]);
    expect((await alice.client.experimental.tasks.getTask(task.taskId)).taskId).toBe(task.taskId);
  });

  it("reports a task failed once the instance running it was killed", async () => {
    const { client } = await connect();
    const { task } = await createTask(client, { seconds: 20, label: "doomed" });
    await sleep(400);
    const seen = await client.experimental.tasks.getTask(task.taskId);
    const runner = instances.find((i) => seen.statusMessage?.endsWith(`on ${i.name}`))!;
    expect(runner).toBeDefined();
    runner.child.kill("SIGKILL");
    await new Promise((resolve) => runner.child.once("exit", resolve));
    // Working until the lease lapses, then failed: never left working.
    const deadline = Date.now() + LEASE_MS + 3000;
    let status = seen.status;
    while (status === "working" && Date.now() < deadline) {
      await sleep(200);
      status = (await client.experimental.tasks.getTask(task.taskId)).status;
    }
    expect(status).toBe("failed");
    const error = await client.experimental.tasks
      .getTaskResult(task.taskId, CallToolResultSchema)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: -32603, message: expect.stringContaining("went away") });
  });
});

/**
 * The errors a contract handler means, seen by the official SDK v2 client over real pipes (and over
 * Streamable HTTP for the crash and the cancellations), with the
 * server's default error report: a resource or template that returns `undefined` or throws `notFound()`
 * is -32002 with the URI; `invalidArguments({...})` names each field (an `isError` result for a tool
 * from 2025-11-25, -32602 before and for prompts); `toolError` is a tool's own error result; a crash in a
 * resource handler is -32603 with its message and nothing on stderr; a call the client cancels or lets
 * time out prints nothing either.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, ResourceNotFoundError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/contract-errors/`;
const TSX = `${REPO}node_modules/.bin/tsx`;
/** Handshake-era servers; 2026-07-28 serves the SDK v2 client in the stateless era. */
const VERSIONS = ["2025-06-18", "2025-11-25"];
const SDK_VERSIONS = [...VERSIONS, "2026-07-28"];

beforeAll(async () => {
  const contract = await loadContract(`${FIXTURE}contract.yaml`, "contract.yaml");
  for (const version of SDK_VERSIONS) {
    const out = `${REPO}test/.tmp/contract-errors/${version}/`;
    mkdirSync(out, { recursive: true });
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../generated/${version}`,
    });
    for (const [name, text] of Object.entries(files)) writeFileSync(`${out}${name}`, text);
  }
});

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]!.text;

interface Peer {
  client: Client;
  /** Everything the server wrote to stderr, complete once `closed` resolves. */
  stderr: () => string;
  closed: () => Promise<void>;
}

async function connect(version: string): Promise<Peer> {
  const transport = new StdioClientTransport({
    command: TSX,
    args: ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, version],
    stderr: "pipe",
  });
  let stderr = "";
  const ended = new Promise<void>((resolve) => {
    transport.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    transport.stderr!.on("end", resolve);
  });
  const client = new Client({ name: "contract-errors", version: "1.0.0" });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    closed: async () => {
      await client.close();
      await ended;
    },
  };
}

/**
 * The SDK turns -32002 with `data.uri` into its ResourceNotFoundError (whose own code is -32602, the
 * 2026-07-28 code); the wire's code is checked where the runtime answers it (test/runtime/server).
 */
async function expectNotFound(read: Promise<unknown>, uri: string): Promise<void> {
  const error = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ResourceNotFoundError);
  expect(error).toMatchObject({ uri, message: expect.stringContaining(uri) });
}

for (const version of SDK_VERSIONS) {
  describe(`contract errors at ${version}, seen by SDK v2`, () => {
    let peer: Peer;
    beforeAll(async () => {
      peer = await connect(version);
    }, 30_000);
    afterAll(() => peer.closed());

    it("answers a resource handler returning undefined with -32002 naming the URI", async () => {
      await expectNotFound(peer.client.readResource({ uri: "info://gone" }), "info://gone");
    });

    it("answers a template handler's notFound() and its undefined with -32002 naming the URI", async () => {
      for (const uri of ["task://2", "task://9"]) {
        await expectNotFound(peer.client.readResource({ uri }), uri);
      }
      const found = await peer.client.readResource({ uri: "task://1" });
      expect(found.contents).toEqual([{ uri: "task://1", text: "write the tests" }]);
    });

    it("answers a throw in a resource or template handler with -32603 and its message", async () => {
      await expect(peer.client.readResource({ uri: "info://broken" })).rejects.toMatchObject({
        code: -32603,
        data: { message: "the disk is on fire" },
      });
      await expect(peer.client.readResource({ uri: "task://3" })).rejects.toMatchObject({
        code: -32603,
        data: { message: "tasks[3] is not readable" },
      });
    });

    it("names every field invalidArguments lists, as the version answers a tool's bad arguments", async () => {
      const message =
        'Invalid arguments for tool "schedule": due: must not be before start; start: must be before due';
      const call = peer.client.callTool({ name: "schedule", arguments: { start: 5, due: 1 } });
      if (version === "2025-06-18") {
        await expect(call).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining(message),
          data: {
            field: "due",
            reason: "must not be before start",
            issues: [
              { path: "/arguments/due", message: "must not be before start" },
              { path: "/arguments/start", message: "must be before due" },
            ],
          },
        });
      } else {
        const result = await call;
        expect(result.isError).toBe(true);
        expect(text(result)).toBe(message);
      }
      await expect(
        peer.client.getPrompt({ name: "plan", arguments: { day: "friday" } }),
      ).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid arguments for prompt "plan": day: only monday is planned'),
        data: { field: "day", reason: "only monday is planned" },
      });
    });

    it("sends toolError as the tool's own isError result", async () => {
      const result = await peer.client.callTool({ name: "lookup", arguments: { id: 4 } });
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "no task 4; tasks are 1..1" }],
      });
      expect(text(await peer.client.callTool({ name: "lookup", arguments: { id: 1 } }))).toBe(
        "write the tests",
      );
    });

    it("stops a call the client cancels or lets time out", async () => {
      const controller = new AbortController();
      const cancelled = peer.client.callTool({ name: "slow", arguments: {} }, { signal: controller.signal });
      setTimeout(() => controller.abort("user cancelled"), 100);
      await expect(cancelled).rejects.toThrow();
      await expect(peer.client.callTool({ name: "slow", arguments: {} }, { timeout: 200 })).rejects.toThrow(
        /timed out/i,
      );
      // Both handlers have thrown by the time a later request is answered.
      await peer.client.ping();
    });

    it("printed nothing on stderr for any of the above", async () => {
      await peer.closed();
      expect(peer.stderr()).toBe("");
    });
  });
}

describe("not found on the wire", () => {
  it("is -32002 with data.uri, for undefined and for notFound(), in both versions", async () => {
    for (const version of VERSIONS) {
      const child = spawn(TSX, ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, version], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
      const next = async () => JSON.parse((await lines.next()).value as string);
      send({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
      });
      expect((await next()).result.protocolVersion).toBe(version);
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      for (const [id, uri] of [
        [1, "info://gone"],
        [2, "task://2"],
        [3, "task://9"],
      ] as const) {
        send({ jsonrpc: "2.0", id, method: "resources/read", params: { uri } });
        expect(await next()).toEqual({
          jsonrpc: "2.0",
          id,
          error: { code: -32002, message: `Resource not found: ${uri}`, data: { uri } },
        });
      }
      child.stdin!.end();
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }, 30_000);
});

describe("over Streamable HTTP, seen by SDK v2", () => {
  it("answers a crash -32603 and a cancelled or timed-out call, printing nothing on stderr", async () => {
    const child = spawn(
      TSX,
      ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, "2025-11-25", "--http"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    try {
      const url = (await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next())
        .value as string;
      const client = new Client({ name: "contract-errors-http", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      await expect(client.readResource({ uri: "info://broken" })).rejects.toMatchObject({
        code: -32603,
        data: { message: "the disk is on fire" },
      });
      await expectNotFound(client.readResource({ uri: "task://2" }), "task://2");
      const controller = new AbortController();
      const cancelled = client.callTool({ name: "slow", arguments: {} }, { signal: controller.signal });
      setTimeout(() => controller.abort("user cancelled"), 100);
      await expect(cancelled).rejects.toThrow();
      await expect(client.callTool({ name: "slow", arguments: {} }, { timeout: 200 })).rejects.toThrow(
        /timed out/i,
      );
      await client.ping();
      await client.close();
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
    expect(stderr).toBe("");
  }, 30_000);
});

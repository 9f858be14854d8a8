/**
 * The README's "Long-running tools" run as written. The test reads the section, checks its command lines
 * are the ones it runs (so a README edit breaks it until the test follows), and runs them for real, as
 * test/docs/readme-auth.test.ts does: `npx mcp-codegen init` from the packed packages (test/cli/packed.ts),
 * `npm install` offline, the section's `contract.yaml` tool put under the scaffold's `tools:`, `generate`
 * (whose stub the section's handler replaces, its import on top of src/handlers.ts), its client as
 * src/report-client.ts, `npm run build` (which type-checks both), `npm start` on a free port, and the
 * client run against it over HTTP on 127.0.0.1 through a recording proxy (the README's port 3000 is the
 * proxy's), so the test sees the task's requests: created by `tools/call`, polled with `tasks/get` to its
 * end, cancelled with `tasks/cancel`. The client runs twice: as written (the project's 2026-07-28 client:
 * the tasks extension) and with a client generated for 2025-11-25 (the core tasks, in an initialize
 * session), which is what the section says the same code does.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { packedWorkspace } from "../cli/packed.js";
import { REPO } from "../cli/run.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { blocksOf, commandLines, endChildren, parse, sectionOf, startChild } from "./readme-run.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");
const TITLE = "Long-running tools";
const README_URL = "http://127.0.0.1:3000/mcp";
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The command lines of the section's `sh` blocks. */
const commandsOf = (section: string) => commandLines(blocksOf(section, "sh"));

/** A JSON-RPC request as the proxy saw it go to the server. */
interface Seen {
  method: string;
  /** 2025-11-25: `params.task` present. */
  coreTask: boolean;
  /** 2026-07-28: the tasks extension declared in the request's `_meta` client capabilities. */
  extension: boolean;
}

const { work, env, must, pack, initArgs } = packedWorkspace("mcp-codegen-readme-tasks-");
const children = new Set<ChildProcess>();
let proxy: Server | undefined;

afterAll(async () => {
  endChildren(children);
  proxy?.closeAllConnections();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

/** A child in its own process group, its output collected; never blocks this process (the proxy runs here). */
const start = (cmd: string, argv: string[], cwd: string, childEnv: NodeJS.ProcessEnv) =>
  startChild(children, cmd, argv, cwd, childEnv);

/** An HTTP proxy on 127.0.0.1 to the server at `port`, recording each JSON-RPC request's method into `seen`. */
async function recordingProxy(port: number, seen: Seen[]): Promise<string> {
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      if (body.length > 0) {
        const message = JSON.parse(body.toString("utf8"));
        if (typeof message.method === "string" && message.id !== undefined) {
          const params = message.params ?? {};
          const capabilities = params._meta?.["io.modelcontextprotocol/clientCapabilities"];
          seen.push({
            method: message.method,
            coreTask: params.task !== undefined,
            extension: capabilities?.extensions?.[TASKS_EXTENSION] !== undefined,
          });
        }
      }
      const upstream = request(
        {
          host: "127.0.0.1",
          port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: `127.0.0.1:${port}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", (error) => res.destroy(error));
      res.on("close", () => upstream.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;
}

/** The task requests among those seen, as one line: `tools/call tasks/get …`. */
const taskRequests = (seen: Seen[]) =>
  seen
    .filter((s) => s.method === "tools/call" || s.method.startsWith("tasks/"))
    .map((s) => s.method)
    .join(" ");

describe("README: Long-running tools", () => {
  const section = sectionOf(README, TITLE);
  const commands = commandsOf(section);
  const [contractBlock, ...others] = blocksOf(section, "yaml");
  const [handlerBlock, clientBlock, ...moreTs] = blocksOf(section, "ts");
  const dir = join(work, "reports");

  it("lists the commands this test runs, and one contract, one handler and one client", () => {
    expect(commands).toEqual([
      "npx mcp-codegen init reports --transport http --protocol 2026-07-28",
      "cd reports",
      "npm install",
      "npx mcp-codegen generate",
      "npm run build",
      "PORT=3000 npm start",
      "npx tsx src/report-client.ts",
    ]);
    expect(others).toEqual([]);
    expect(moreTs).toEqual([]);
    expect(contractBlock).toMatch(/^tools:\n {2}export_report:\n/);
    expect(contractBlock).toContain("execution: { taskSupport: optional }");
    expect(handlerBlock).toMatch(/^\s+export_report: async/m);
    expect(clientBlock!.split(README_URL)).toHaveLength(2);
  });

  it("runs them: the task tool is generated, type-checked and served; the client's task is created, polled to its end and cancelled, in both generations", async () => {
    const packed = pack();
    let cwd = work;
    let server: ReturnType<typeof start> | undefined;
    let serverPort = 0;
    let clientLine = "";
    for (const line of commands) {
      const { env: assigned, argv } = parse(line);
      const [cmd, ...args] = argv;
      const joined = argv.join(" ");
      if (joined.startsWith("npx mcp-codegen init ")) must("npx", initArgs(packed, args.slice(2)), cwd);
      else if (cmd === "cd") cwd = join(cwd, args[0]!);
      else if (joined === "npm install")
        must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], cwd);
      else if (joined === "npx mcp-codegen generate") {
        // The section's tool goes under the scaffold's `tools:` before generate, as the README orders.
        const contractFile = join(cwd, "contract.yaml");
        const contract = readFileSync(contractFile, "utf8");
        expect(contract).toMatch(/^tools:\n/m);
        writeFileSync(contractFile, contract.replace(/^tools:\n/m, contractBlock!));
        const generated = must("npx", ["mcp-codegen", "generate"], cwd);
        expect(generated.stdout + generated.stderr).toContain("stubs added for tools.export_report");
        expect(readFileSync(join(cwd, "generated/contract/server.ts"), "utf8")).toContain(
          'export type TaskTools = "export_report";',
        );
        // The handler in place of the stub; its imports on top of the file.
        const handlersFile = join(cwd, "src/handlers.ts");
        const handlers = readFileSync(handlersFile, "utf8");
        const stub = /^ *\/\/ tool export_report: new in the contract; write it\.\n *export_report: .*\n/m;
        expect(handlers).toMatch(stub);
        const lines = handlerBlock!.split("\n");
        const imports = lines.filter((l) => l.startsWith("import ")).join("\n");
        const body = lines.filter((l) => !l.startsWith("import ") && l.trim() !== "").join("\n");
        writeFileSync(handlersFile, `${imports}\n${handlers.replace(stub, `${body}\n`)}`);
        writeFileSync(join(cwd, "src/report-client.ts"), clientBlock!);
      } else if (joined === "npm run build")
        must("npm", ["run", "build"], cwd); // tsc --noEmit first
      else if (joined === "npm start") {
        expect(assigned).toEqual({ PORT: "3000" });
        serverPort = await freePort();
        server = start("npm", ["start"], cwd, { ...env, PORT: String(serverPort) });
      } else if (joined === "npx tsx src/report-client.ts") clientLine = joined;
      else throw new Error(`a README command this test does not know: ${line}`);
    }
    expect(cwd).toBe(dir);
    expect(server, "npm start was not run").toBeDefined();
    expect(clientLine, "the client was not run").not.toBe("");
    const [, url] = await server!.stderrMatch(/MCP over Streamable HTTP at (\S+)/);
    expect(url).toBe(`http://127.0.0.1:${serverPort}/mcp`);

    const seen: Seen[] = [];
    const proxied = await recordingProxy(serverPort, seen);
    /** Runs a client file in the project with tsx (the scaffold's), its URL the proxy's. */
    const runClient = async (file: string, source: string) => {
      writeFileSync(join(dir, file), source.replace(README_URL, proxied));
      const result = await start("npx", ["tsx", file], dir, env).done;
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };

    // As written: the project's client, generated for 2026-07-28, through the tasks extension.
    const written = readFileSync(join(dir, "src/report-client.ts"), "utf8");
    expect(written).toBe(clientBlock);
    expect(await runClient("src/report-client.ts", written)).toBe("{ rows: 3 }\nworking\ncancelled\n");
    expect(seen.some((s) => s.method === "server/discover")).toBe(true);
    expect(seen.some((s) => s.method === "initialize")).toBe(false);
    // Created by tools/call, polled with tasks/get until it ended (its result inlined there); then the
    // held one: created, polled once, cancelled, read back as cancelled.
    expect(taskRequests(seen)).toMatch(
      /^tools\/call( tasks\/get)+ tools\/call tasks\/get tasks\/cancel tasks\/get$/,
    );
    for (const s of seen.filter((s) => s.method === "tools/call" || s.method.startsWith("tasks/")))
      expect(s, "every task request declares the extension").toMatchObject({
        extension: true,
        coreTask: false,
      });

    // The same code with a client generated for 2025-11-25: the core tasks in an initialize session.
    seen.length = 0;
    must(
      join(dir, "node_modules/.bin/mcp-codegen"),
      ["generate", "-p", "2025-11-25", "-o", join(dir, "gen")],
      work,
    );
    const core = written.replace('from "../generated/client.js"', 'from "./2025-11-25/client.js"');
    expect(core).not.toBe(written);
    expect(await runClient("gen/report-client.ts", core)).toBe("{ rows: 3 }\nworking\ncancelled\n");
    expect(seen[0]?.method).toBe("initialize");
    expect(seen.some((s) => s.method === "server/discover")).toBe(false);
    // Created by tools/call with `task`, polled with tasks/get to its end, its result from tasks/result;
    // the held one: created, polled once, cancelled (tasks/cancel answers the cancelled task).
    expect(taskRequests(seen)).toMatch(
      /^tools\/call( tasks\/get)+ tasks\/result tools\/call tasks\/get tasks\/cancel$/,
    );
    expect(seen.filter((s) => s.method === "tools/call").map((s) => s.coreTask)).toEqual([true, true]);

    expect(server!.run.code).toBeNull(); // still serving
  }, 300_000);
});

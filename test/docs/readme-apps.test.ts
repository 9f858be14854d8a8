/**
 * The README's "Interactive UI (MCP Apps)" run as written. The test reads the section, checks its command
 * lines are the ones it runs (so a README edit breaks it until the test follows), and runs them for real:
 * `npx mcp-codegen init … --app` from the packed packages (test/cli/packed.ts), `npm install` offline,
 * `npm run build` (the view bundled into ui/counter.html before generate), `npm start` on a free port (the
 * README's 3000 is replaced), and the section's host, src/host.ts, run with tsx against it: the view found
 * and read (the built HTML, under the default policy), the tool called, the app-only tool routed. The
 * web-page part (ext-apps' AppBridge) is type-checked against the installed ext-apps and this runtime.
 */
import type { ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { uiPolicy } from "../../runtime/client/index.js";
import { packedWorkspace } from "../cli/packed.js";
import { REPO } from "../cli/run.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { typeErrors } from "../support/typecheck.js";
import { blocksOf, commandLines, endChildren, parse, sectionOf, startChild } from "./readme-run.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");
const TITLE = "Interactive UI (MCP Apps)";
const README_URL = "http://127.0.0.1:3000/mcp";

const { work, env, must, pack, initArgs } = packedWorkspace("mcp-codegen-readme-apps-");
const children = new Set<ChildProcess>();

afterAll(() => {
  endChildren(children);
  rmSync(work, { recursive: true, force: true });
});

describe("README: Interactive UI (MCP Apps)", () => {
  const section = sectionOf(README, TITLE);
  const commands = commandLines(blocksOf(section, "sh"));
  const [hostBlock, bridgeBlock, ...moreTs] = blocksOf(section, "ts");
  const dir = join(work, "dashboard");

  it("lists the commands this test runs, one host and one bridge", () => {
    expect(commands).toEqual([
      "npx mcp-codegen init dashboard --app --transport http",
      "cd dashboard",
      "npm install",
      "npm run build",
      "PORT=3000 npm start",
      "npx tsx src/host.ts",
    ]);
    expect(moreTs).toEqual([]);
    expect(hostBlock!.split(README_URL)).toHaveLength(2);
    for (const name of ["apps: true", "toolUi(", "readUi(", "uiPolicy(", "appToolCall("])
      expect(hostBlock).toContain(name);
    expect(bridgeBlock).toContain("new AppBridge(");
  });

  it("the web page's bridge type-checks against the installed ext-apps and this runtime", () => {
    const tmp = join(REPO, "test/.tmp/readme-apps");
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    // What the section's host holds by then: the client's call router, the view read, the tool's result.
    const lines = bridgeBlock!.split("\n");
    const context = [
      'import type { appToolCall, UiResource } from "../../../runtime/client/index.js";',
      'import type { CallToolResult as Result } from "../../../generated/2026-07-28/types.js";',
      "declare const frame: HTMLIFrameElement;",
      "declare const ui: UiResource;",
      "declare const result: Result;",
      "declare const call: ReturnType<typeof appToolCall>;",
    ];
    writeFileSync(
      join(tmp, "bridge.ts"),
      [
        ...lines.filter((l) => l.startsWith("import ")),
        ...context,
        ...lines.filter((l) => !l.startsWith("import ")),
        "export {};",
      ].join("\n"),
    );
    expect(typeErrors(tmp, ["bridge.ts"])).toEqual([]);
  }, 120_000);

  it("runs them: the view is built into the served HTML; the host finds, reads and checks it, calls the tool and routes the view's call", async () => {
    const packed = pack();
    let cwd = work;
    let server: ReturnType<typeof startChild> | undefined;
    let serverPort = 0;
    let hostRun: { code: number | null; stdout: string; stderr: string } | undefined;
    for (const line of commands) {
      const { env: assigned, argv } = parse(line);
      const [cmd, ...args] = argv;
      const joined = argv.join(" ");
      if (joined.startsWith("npx mcp-codegen init ")) must("npx", initArgs(packed, args.slice(2)), cwd);
      else if (cmd === "cd") cwd = join(cwd, args[0]!);
      else if (joined === "npm install")
        must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], cwd);
      else if (joined === "npm run build") {
        const built = must("npm", ["run", "build"], cwd);
        expect(built.stderr).toMatch(/built ui\/counter\.html \(\d+ bytes\)/);
      } else if (joined === "npm start") {
        expect(assigned).toEqual({ PORT: "3000" });
        serverPort = await freePort();
        server = startChild(children, "npm", ["start"], cwd, { ...env, PORT: String(serverPort) });
        const [, url] = await server.stderrMatch(/MCP over Streamable HTTP at (\S+)/);
        expect(url).toBe(`http://127.0.0.1:${serverPort}/mcp`);
      } else if (joined === "npx tsx src/host.ts") {
        const url = `http://127.0.0.1:${serverPort}/mcp`;
        writeFileSync(join(cwd, "src/host.ts"), hostBlock!.replace(README_URL, url));
        hostRun = await startChild(children, "npx", ["tsx", "src/host.ts"], cwd, env).done;
      } else throw new Error(`a README command this test does not know: ${line}`);
    }
    expect(cwd).toBe(dir);
    expect(hostRun, "the host was not run").toBeDefined();
    expect(hostRun!.code, hostRun!.stderr).toBe(0);

    // The section's claims about the scaffold.
    const contract = readFileSync(join(dir, "contract.yaml"), "utf8");
    expect(contract).toContain("ui: ./ui/counter.html");
    expect(contract).toContain("ui: { app: show_counter, visibility: [app] }");
    expect(readFileSync(join(dir, "src/ui/counter.ts"), "utf8")).toContain(
      'connectApp(\n  "ui://show_counter"',
    );
    const html = readFileSync(join(dir, "ui/counter.html"), "utf8");
    expect(html).toMatch(/<script type="module">[^<]*ui\/initialize/);
    expect(html).not.toContain('src="./counter.ts"');

    const out = hostRun!.stdout.split("\n");
    // The view as served is the built file, whole; no origin declared: the extension's default policy.
    expect(out[0]).toBe(`ui://show_counter ${html.length}`);
    expect(out[1]).toBe(uiPolicy({}));
    expect(out[1]).toContain("default-src 'none'");
    expect(out[2]).toBe("{ value: 5 }");
    expect(hostRun!.stdout).toMatch(/structuredContent: \{ value: 6 \}/);
    expect(server!.run.code).toBeNull(); // still serving
  }, 400_000);
});

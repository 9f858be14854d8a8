/**
 * A scaffolded stdio server run the way a developer runs it while writing it, without a build: `tsx
 * src/main.ts` (the scaffold carries tsx, so `.ts` files with their `.js` import specifiers run as they
 * are), talking to the official SDK v2 client; it says once on stderr that it is ready and nothing on
 * stdout but the protocol. An ad-hoc script beside the handlers runs the same way. The scaffold's
 * package.json approves (`allowScripts`) every install script of what it installs, so npm does not warn.
 * The project sits under the repository (test/.tmp/) so its imports resolve to this checkout.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { beforeAll, describe, expect, it } from "vitest";
import { typeErrors } from "../support/typecheck.js";
import { REPO, runCli } from "./run.js";

const WORK = `${REPO}test/.tmp/scaffold-run/`;
const dir = join(WORK, "ready-server");
const TSX = `${REPO}node_modules/.bin/tsx`;
const SOURCE = "--conditions=mcp-codegen-source";

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

const manifest = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Manifest;

beforeAll(() => {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const r = runCli(["init", dir, "-q"]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe("a scaffolded stdio server, run from source", () => {
  it("says it is ready in one line on stderr and serves the SDK v2 client on stdout", async () => {
    const transport = new StdioClientTransport({
      command: TSX,
      args: [SOURCE, "src/main.ts"],
      cwd: dir,
      stderr: "pipe",
    });
    let stderr = "";
    const ended = new Promise<void>((resolve) => {
      transport.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      transport.stderr!.on("end", resolve);
    });
    const client = new Client({ name: "scaffold-run", version: "1.0.0" });
    await client.connect(transport);
    try {
      await expect.poll(() => stderr, { timeout: 10_000 }).toContain("\n");
      const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
      expect(sum.structuredContent).toEqual({ sum: 42 });
      const overflow = await client.callTool({ name: "add", arguments: { a: 1e308, b: 1e308 } });
      expect(overflow).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "the sum is too large" }],
      });
    } finally {
      await client.close();
      await ended;
    }
    expect(stderr).toBe("ready-server: MCP over stdio, ready for a client on stdin\n");
  }, 60_000);

  it("runs an ad-hoc script importing the generated contract with tsx, as the scaffold's tsx is for", () => {
    expect(manifest(join(dir, "package.json")).devDependencies).toHaveProperty("tsx");
    writeFileSync(
      join(dir, "src/try-add.ts"),
      `import { contract } from "./handlers.js";\nconst out = await contract.tools.add({ a: 1, b: 2 }, {} as never, {} as never);\nconsole.log(JSON.stringify(out));\n`,
    );
    const r = spawnSync(TSX, [SOURCE, "src/try-add.ts"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe('{"sum":3}\n');
  }, 60_000);

  it("approves, in allowScripts, every install script of the packages it installs", () => {
    const pkg = manifest(join(dir, "package.json"));
    // The packages the scaffold's install brings, as found in this checkout's node_modules (the same
    // ranges: init writes the ones mcp-codegen is built with); mcp-codegen itself is this repository.
    const seen = new Set<string>();
    const withScripts: string[] = [];
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const path =
        name === "mcp-codegen" ? `${REPO}package.json` : `${REPO}node_modules/${name}/package.json`;
      if (!existsSync(path)) return; // an optional dependency for another platform
      const m = manifest(path);
      const scripts = m.scripts ?? {};
      if (name !== "mcp-codegen" && (scripts.preinstall || scripts.install || scripts.postinstall))
        withScripts.push(name);
      const deps = { ...m.dependencies, ...m.optionalDependencies };
      for (const dep of Object.keys(deps)) visit(dep);
    };
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) visit(dep);
    expect(seen.size).toBeGreaterThan(10);
    expect(withScripts).toContain("esbuild");
    for (const name of withScripts) expect(pkg.allowScripts?.[name], name).toBe(true);
  });

  it("type-checks, and tsc reports a wrong output at the return of a handler declaring its return type", () => {
    const handlers = readFileSync(join(dir, "src/handlers.ts"), "utf8");
    const right = "return Number.isFinite(sum) ? { sum } : toolError";
    expect(handlers).toContain(right);
    // The same handlers with add answering its sum as a string: a wrong output for its outputSchema.
    writeFileSync(
      join(dir, "src/handlers-wrong.ts"),
      handlers.replace(right, "return Number.isFinite(sum) ? { sum: String(sum) } : toolError"),
    );
    const line = handlers.split("\n").findIndex((l) => l.includes(right)) + 1;
    const errors = typeErrors(WORK, ["ready-server/src/**/*.ts", "ready-server/generated/**/*.ts"]);
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `/ready-server/src/handlers-wrong\\.ts\\(${line},\\d+\\): error TS2322: Type 'string' is not assignable to type 'number'\\.$`,
        ),
      ),
    ]);
  }, 120_000);
});

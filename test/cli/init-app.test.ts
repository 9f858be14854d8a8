/**
 * `init --app`: a server whose tool has an interactive UI (MCP Apps). From the packed packages
 * (test/cli/packed.ts, `npm install` offline): the scaffold installs; `npm run build` bundles the view's
 * TypeScript (written on the generated app.ts) into the single HTML file the contract names, then
 * generates, type-checks and builds; `npm test` property-tests it. The built server is started over
 * stdio for this project's runtime client (`apps: true`: the tool's UI found with `toolUi`, read with
 * `readUi`, the HTML holding the bundled view; the tool called; the app-only tool left to the view) and
 * over HTTP for the official SDK v2 client, which reads the same resource. In headless Chromium (as
 * test/browser/ launches it), a page with ext-apps' official `AppBridge` renders the served view in a
 * sandboxed frame: the view shows the tool's input and result, and its button calls `increment` through
 * the bridge and our client, the new value shown. Protocol 2026-07-28 here (the stateless era;
 * test/docs/readme-apps.test.ts runs the default, 2025-11-25); a stdio scaffold on 2024-11-05, the oldest,
 * builds and serves its view too. Misuse is a CLI error.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient as createClient25 } from "../../generated/2025-11-25/index.js";
import { createClient } from "../../generated/2026-07-28/index.js";
import { appToolCall, modelTools, readUi, toolUi } from "../../runtime/client/index.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import { endChildren, startChild } from "../docs/readme-run.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { packedWorkspace } from "./packed.js";
import { REPO, runCli } from "./run.js";

const CHROMIUM = "/usr/bin/chromium";
const noChromium = !existsSync(CHROMIUM);
const inCi = Boolean(process.env.CI);

/**
 * The host page's script: ext-apps' AppBridge and PostMessageTransport, the view in a sandboxed frame
 * (its HTML as srcdoc), the view's tools/call answered by the test's client (exposed as mcpAppCall).
 */
const HOST = `
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
window.openView = async ({ html, input, result }) => {
  const frame = document.createElement("iframe");
  frame.id = "view";
  frame.setAttribute("sandbox", "allow-scripts");
  document.body.appendChild(frame);
  const bridge = new AppBridge(null, { name: "test-host", version: "1.0.0" }, { serverTools: {} });
  bridge.oncalltool = (params) => window.mcpAppCall(params);
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: input });
    void bridge.sendToolResult(result);
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
};
`;

const MIME = "text/html;profile=mcp-app";
const { work, env, run, must, pack, initArgs } = packedWorkspace("mcp-codegen-init-app-");
const children = new Set<ChildProcess>();
let packed = { tarball: "", runtimeTarball: "" };

beforeAll(() => {
  packed = pack();
}, 180_000);
afterAll(() => {
  endChildren(children);
  rmSync(work, { recursive: true, force: true });
});

/** The parts of a served view's HTML that show it is the built page with the bundled view inline. */
function expectBuiltView(html: string): void {
  expect(html).toMatch(/^<!doctype html>/);
  expect(html).toContain('<output id="value">');
  // The page's script tag replaced by the bundle, inline: no file left for the sandbox to fetch.
  expect(html).not.toContain('src="./counter.ts"');
  const scripts = [...html.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
  expect(scripts).toHaveLength(1);
  // The generated binding (its view URI, the increment tool it calls) and the runtime's view module.
  for (const part of ["ui://show_counter", "increment", "ui/initialize", "ui/notifications/tool-result"])
    expect(scripts[0]).toContain(part);
  expect(scripts[0]).not.toMatch(/^import /m);
}

describe("mcp-codegen init --app", () => {
  const dir = join(work, "counter-app");

  it("scaffolds a server with a view that installs, bundles its view before generate, builds and passes npm test", () => {
    const created = run(
      "npx",
      initArgs(packed, [dir, "--app", "--transport", "both", "--protocol", "2026-07-28"]),
      work,
    );
    expect(created.code, created.stderr).toBe(0);
    for (const file of ["src/ui/counter.html", "src/ui/counter.ts", "scripts/build-ui.ts", "ui/counter.html"])
      expect(existsSync(join(dir, file)), file).toBe(true);
    expect(readFileSync(join(dir, "contract.yaml"), "utf8")).toContain("ui: ./ui/counter.html");
    expect(readFileSync(join(dir, "src/ui/counter.ts"), "utf8")).toContain(
      'from "../../generated/contract/app.js"',
    );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts["build:ui"]).toBe("tsx scripts/build-ui.ts");
    // The view is built first: generate reads the HTML it names, then tsc checks the server and the view.
    expect(pkg.scripts.build).toMatch(/^npm run -s build:ui && mcp-codegen generate && tsc --noEmit/);
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(["esbuild", "tsx"]));
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain("## The interactive view (MCP Apps)");
    expect(readme).toContain("Apps");

    must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], dir);
    // Before the build: the placeholder the contract names, served until the view is bundled.
    expect(readFileSync(join(dir, "ui/counter.html"), "utf8")).toContain("not built yet");
    const built = must("npm", ["run", "build"], dir);
    expect(built.stderr).toMatch(/built ui\/counter\.html \(\d+ bytes\)/);
    expectBuiltView(readFileSync(join(dir, "ui/counter.html"), "utf8"));
    // The generated tables hold the built page, not the placeholder.
    const tables = readFileSync(join(dir, "generated/contract/tables.js"), "utf8");
    expect(tables).toContain("ui://show_counter");
    expect(tables).not.toContain("not built yet");
    // A second build changes nothing the generator reads: generate --check passes.
    must("npm", ["run", "-s", "check"], dir);
    const tested = must("npm", ["test"], dir);
    expect(tested.stdout + tested.stderr).toMatch(/show_counter/);
  }, 400_000);

  it("serves the view over stdio: our client (apps: true) finds it with toolUi, reads it with readUi and calls the tool", async () => {
    const client = createClient({ info: { name: "host", version: "1.0.0" }, apps: true });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js"], cwd: dir, env }),
    );
    try {
      const { tools } = await client.listTools({});
      const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
      expect(toolUi(byName.show_counter!)).toBe("ui://show_counter");
      expect(toolUi(byName.increment!)).toBe("ui://show_counter");
      expect(toolUi(byName.add!)).toBeUndefined();
      // increment is the view's alone: a host keeps it from the model.
      expect(modelTools(tools).map((t) => t.name)).not.toContain("increment");
      expect(modelTools(tools).map((t) => t.name)).toContain("show_counter");

      const ui = await readUi(client, toolUi(byName.show_counter!)!);
      expectBuiltView(ui.html);
      expect(ui.html).toBe(readFileSync(join(dir, "ui/counter.html"), "utf8"));

      const shown = await client.callTool({ name: "show_counter", arguments: { start: 5 } });
      expect(shown.structuredContent).toEqual({ value: 5 });
      const call = appToolCall(client, tools);
      expect(await call({ name: "increment", arguments: { value: 5, by: 2 } })).toMatchObject({
        structuredContent: { value: 7 },
      });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("serves the view over HTTP: the SDK v2 client reads the same resource", async () => {
    const port = await freePort();
    const server = startChild(children, "npm", ["start", "--", "--http", String(port)], dir, env);
    const [, url] = await server.stderrMatch(/MCP over Streamable HTTP at (\S+)/);
    const client = new Client({ name: "sdk-v2", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    try {
      const { tools } = await client.listTools();
      const show = tools.find((t) => t.name === "show_counter")!;
      expect(show._meta).toMatchObject({ ui: { resourceUri: "ui://show_counter" } });
      const read = await client.readResource({ uri: "ui://show_counter" });
      expect(read.contents).toHaveLength(1);
      const [content] = read.contents as { uri: string; mimeType: string; text: string }[];
      expect(content).toMatchObject({ uri: "ui://show_counter", mimeType: MIME });
      expect(content!.text).toBe(readFileSync(join(dir, "ui/counter.html"), "utf8"));
      expectBuiltView(content!.text);
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("mcp-codegen init --app --transport stdio on the oldest protocol", () => {
  it("2024-11-05: builds, and our client reads the view and calls the tool", async () => {
    const dir = join(work, "old-app");
    const created = run("npx", initArgs(packed, [dir, "--app", "--protocol", "2024-11-05"]), work);
    expect(created.code, created.stderr).toBe(0);
    must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], dir);
    must("npm", ["run", "build"], dir);
    const client = createClient25({ info: { name: "host", version: "1.0.0" }, apps: true });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js"], cwd: dir, env }),
    );
    try {
      const { tools } = await client.listTools({});
      const show = tools.find((t) => t.name === "show_counter")!;
      const ui = await readUi(client, toolUi(show)!);
      expectBuiltView(ui.html);
      const shown = await client.callTool({ name: "show_counter", arguments: {} });
      expect(shown.structuredContent).toEqual({ value: 0 });
    } finally {
      await client.close();
    }
  }, 300_000);
});

describe.skipIf(noChromium && !inCi)(
  noChromium
    ? `init --app in a browser: no Chromium at ${CHROMIUM} (skipped without CI, fails with it)`
    : "init --app in a browser",
  () => {
    const dir = join(work, "counter-app");

    it("ext-apps' AppBridge renders the served view: it shows the input and result, and its button calls increment through the host", async () => {
      if (noChromium)
        throw new Error(
          `Chromium is not installed at ${CHROMIUM}, and CI is set: install it (apt-get install -y chromium)`,
        );
      const script = await build({
        stdin: { contents: HOST, resolveDir: REPO, loader: "js" },
        bundle: true,
        write: false,
        format: "esm",
        platform: "browser",
        target: "es2022",
        logLevel: "error",
      });
      const site = createServer((req, res) => {
        if (req.url === "/host.js")
          return void res
            .writeHead(200, { "content-type": "text/javascript" })
            .end(script.outputFiles[0]!.text);
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            '<!doctype html><meta charset="utf-8"><title>host</title><script type="module" src="/host.js"></script>',
          );
      });
      await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
      const client = createClient({ info: { name: "browser-host", version: "1.0.0" }, apps: true });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: ["dist/src/main.js"], cwd: dir, env }),
      );
      const context = await chromium.launchPersistentContext(join(work, "chromium-profile"), {
        executablePath: CHROMIUM,
        headless: true,
        timeout: 60_000,
        args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
      });
      try {
        const { tools } = await client.listTools({});
        const ui = await readUi(client, toolUi(tools.find((t) => t.name === "show_counter")!)!);
        const result = await client.callTool({ name: "show_counter", arguments: { start: 5 } });
        const routed = appToolCall(client, tools);
        const appCalls: unknown[] = [];
        const tab = context.pages()[0] ?? (await context.newPage());
        const errors: string[] = [];
        tab.on("pageerror", (error) => errors.push(error.message));
        await tab.exposeFunction("mcpAppCall", (params: { name: string; arguments?: object }) => {
          appCalls.push(params);
          return routed(params as never);
        });
        await tab.goto(`http://127.0.0.1:${(site.address() as AddressInfo).port}/`);
        await tab.waitForFunction(() => typeof (window as { openView?: unknown }).openView === "function");
        await tab.evaluate(
          (options) => (window as unknown as { openView(o: object): Promise<void> }).openView(options),
          { html: ui.html, input: { start: 5 }, result },
        );
        const view = tab.frameLocator("#view");
        const text = (id: string) => view.locator(`#${id}`).textContent();
        await expect.poll(() => text("value"), { timeout: 20_000 }).toBe("5");
        expect(await text("start")).toBe("5");
        await view.locator("#increment").click();
        await expect.poll(() => text("value")).toBe("6");
        await view.locator("#increment").click();
        await expect.poll(() => text("value")).toBe("7");
        expect(appCalls).toEqual([
          { name: "increment", arguments: { value: 5, by: 1 } },
          { name: "increment", arguments: { value: 6, by: 1 } },
        ]);
        expect(await text("error")).toBe("");
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await client.close();
        site.close();
      }
    }, 120_000);
  },
);

describe("mcp-codegen init --app misuse and help", () => {
  it("--app with --client is a usage error naming both; nothing is written", () => {
    const dir = join(work, "client-app");
    const r = runCli(["init", dir, "--app", "--client"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--app scaffolds a server whose tool has an interactive UI");
    expect(r.stderr).not.toMatch(/^\s+at /m);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it("init --help and the top-level help name --app", () => {
    const help = runCli(["init", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--app");
    expect(help.stdout).toContain("mcp-codegen init dashboard --app");
    expect(help.stdout).toContain("src/ui/counter.ts");
    const top = runCli(["--help"]);
    expect(top.stdout).toMatch(/init \[options\] \[dir\]\s+scaffold .*--app/s);
  });
});

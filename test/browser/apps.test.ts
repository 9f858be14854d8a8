/**
 * MCP Apps in a real browser: Debian's Chromium, headless, driven by playwright-core. A host page on one
 * loopback origin runs ext-apps' official `AppBridge` + `PostMessageTransport` with our runtime client's
 * Apps helpers (test/fixtures/apps/pages/host.ts); the sandbox proxy is our page on another origin
 * (pages/sandbox.ts: the extension's proxy rules, the view loaded under our `uiPolicy`).
 *
 * The server is a contract's: test/fixtures/apps/browser/ (contract.yaml: `show_counter` with its view
 * and a CSP, the app-only `increment` on that view, the model-only `secret` without a view; server.ts:
 * its handlers) is copied to
 * test/.tmp/apps-browser/<view side>/, its CSP given the test's API origin (a random port), and
 * generated there in-process (`loadContract` + `emitContract`, what `generate` runs). The view is bundled
 * inline into the HTML the contract names: view.ts, on the generated `contract/app.ts` (our runtime's
 * view module, typed by the contract), or ext-apps-view.ts, on ext-apps' own `App` class. `app.ts`
 * does not depend on the HTML, so each copy is generated, its view bundled, and generated again. The
 * project's TypeScript (both views, the server) type-checks against the generated code. Over HTTP our client runs in the page (CORS for the host origin); over stdio the
 * generated server runs under tsx, our client in this process, and the page reaches it through
 * `page.exposeFunction`.
 *
 * Seen through the frames' DOM, for each run: the tool and its input and result shown; a click calls
 * `increment` through host and client and the new value appears; the view's call of the model-only
 * `secret` is refused (-32602); the view's fetch of the declared origin passes and of another is blocked
 * by the policy (a `securitypolicyviolation`); the view's size reaches the host; the host context's
 * theme, its change, a cancellation and the host's teardown reach the view. A screenshot of each run is
 * written to the test's temporary folder. Four runs: each view side over HTTP and over stdio; a fifth
 * has our binding under a host whose context does not name the tool.
 *
 * Chromium must be at /usr/bin/chromium (`apt-get install -y chromium`; .ci/run installs it). When it
 * is missing the suite FAILS where CI is set, and is skipped (saying why) only where CI is not set.
 */
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { createClient } from "../../generated/2026-07-28/index.js";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";
import { appToolCall, modelTools, readUi, toolUi, uiPolicy } from "../../runtime/client/index.js";
import { serveHttp } from "../../runtime/node/http.js";
import { StdioClientTransport } from "../../runtime/node/stdio-client.js";
import { typeErrors } from "../support/typecheck.js";

const CHROMIUM = "/usr/bin/chromium";
const missing = !existsSync(CHROMIUM);
const inCi = Boolean(process.env.CI);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const PAGES = here("../fixtures/apps/pages/");
const PROJECT = here("../fixtures/apps/browser/");
const WORK = here("../.tmp/apps-browser/");
const TSX = here("../../node_modules/.bin/tsx");

/** The two view sides, each its entry in the project: our generated binding, ext-apps' `App`. */
const VIEWS = { binding: "view.ts", "ext-apps": "ext-apps-view.ts" } as const;
type ViewSide = keyof typeof VIEWS;

/** A script of the test, bundled for the browser (our runtime from source, ext-apps from node_modules). */
async function bundle(entry: string): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    conditions: ["mcp-codegen-source"],
    logLevel: "error",
  });
  return out.outputFiles[0]!.text;
}

/** A server on 127.0.0.1 answering paths from `routes` (its origin is a page origin of the test). */
async function loopback(routes: Record<string, [type: string, body: string]>, headers = {}) {
  const server = createServer((req, res: ServerResponse) => {
    const route = routes[new URL(req.url ?? "/", "http://x").pathname];
    if (!route) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": route[0], ...headers }).end(route[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** The contract's files, generated for 2026-07-28 into `dir`/contract/ (what `generate` writes there). */
async function generate(dir: string): Promise<void> {
  const contract = await loadContract(join(dir, "contract.yaml"), "contract.yaml");
  const files = await emitContract(contract, {
    protocolVersion: "2026-07-28",
    protocolDir: "../../../../../generated/2026-07-28",
  });
  await mkdir(join(dir, "contract"), { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, "contract", name), text);
}

/**
 * The project copied to WORK/<side>/ with `declared` as its view's connectDomains, generated, its view
 * bundled into view.html, and generated again (the server's tables carry the HTML).
 */
async function project(side: ViewSide, declared: string, undeclared: string): Promise<string> {
  const dir = join(WORK, side);
  await rm(dir, { recursive: true, force: true });
  await cp(PROJECT, dir, { recursive: true });
  const contract = parse(await readFile(join(dir, "contract.yaml"), "utf8"));
  contract.tools.show_counter.ui.csp.connectDomains = [declared];
  await writeFile(join(dir, "contract.yaml"), stringify(contract));
  await writeFile(join(dir, "view.html"), "<!doctype html><title>counter</title>\n");
  await generate(dir);
  await writeFile(
    join(dir, "view.html"),
    viewHtml(await bundle(join(dir, VIEWS[side])), declared, undeclared),
  );
  await generate(dir);
  return dir;
}

const page = (script: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>page</title></head><body><script type="module" src="/${script}"></script></body></html>`;

/** The view's HTML document, its script inline (the only kind the default policy lets run). */
const viewHtml = (script: string, declared: string, undeclared: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>counter</title></head>` +
  `<body data-declared="${declared}/ping" data-undeclared="${undeclared}/ping" style="font: 16px sans-serif">` +
  `<p>state: <span id="state">loading</span></p><p>tool: <span id="tool"></span> input: <span id="input"></span></p>` +
  `<p>value: <b id="value">…</b></p><p><button id="increment">+1</button> <button id="secret">secret</button> ` +
  `<button id="fetch">fetch</button></p><p>secret: <span id="secret-status"></span></p>` +
  `<p>declared: <span id="declared"></span> undeclared: <span id="undeclared"></span></p>` +
  `<p>policy: <span id="violation"></span></p><p>theme: <span id="theme"></span> cancelled: ` +
  `<span id="cancelled"></span></p><p>errors: <span id="errors"></span></p>` +
  `<script type="module">${script.replaceAll("</script", "<\\/script")}</script></body></html>`;

describe.skipIf(missing && !inCi)(
  missing
    ? `browser MCP Apps: no Chromium at ${CHROMIUM} (skipped without CI, fails with it)`
    : "browser MCP Apps",
  () => {
    let context: BrowserContext;
    let temp: string;
    let hostSite: Awaited<ReturnType<typeof loopback>>;
    let sandboxSite: Awaited<ReturnType<typeof loopback>>;
    let declaredApi: Awaited<ReturnType<typeof loopback>>;
    let undeclaredApi: Awaited<ReturnType<typeof loopback>>;
    let csp: { connectDomains: string[] };
    const projects = {} as Record<ViewSide, string>;

    beforeAll(async () => {
      if (missing) {
        throw new Error(
          `Chromium is not installed at ${CHROMIUM}, and CI is set: install it (apt-get install -y chromium), as .ci/run does`,
        );
      }
      const cors = { "access-control-allow-origin": "*" };
      declaredApi = await loopback({ "/ping": ["text/plain", "pong"] }, cors);
      undeclaredApi = await loopback({ "/ping": ["text/plain", "pong"] }, cors);
      csp = { connectDomains: [declaredApi.origin] };
      const [host, sandbox] = await Promise.all([
        bundle(join(PAGES, "host.ts")),
        bundle(join(PAGES, "sandbox.ts")),
      ]);
      for (const side of Object.keys(VIEWS) as ViewSide[])
        projects[side] = await project(side, declaredApi.origin, undeclaredApi.origin);
      hostSite = await loopback({
        "/": ["text/html", page("host.js")],
        "/host.js": ["text/javascript", host],
      });
      sandboxSite = await loopback({
        "/sandbox.html": ["text/html", page("sandbox.js")],
        "/sandbox.js": ["text/javascript", sandbox],
      });
      temp = await mkdtemp(join(tmpdir(), "mcp-codegen-apps-"));
      context = await chromium.launchPersistentContext(join(temp, "profile"), {
        executablePath: CHROMIUM,
        headless: true,
        timeout: 60_000,
        viewport: { width: 640, height: 400 },
        args: [
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
        ],
      });
    }, 180_000);

    afterAll(async () => {
      await context?.close();
      for (const site of [hostSite, sandboxSite, declaredApi, undeclaredApi]) site?.server.close();
      if (temp) await rm(temp, { recursive: true, force: true });
    });

    it("the views and the server type-check against the contract's generated code", () => {
      // view.ts holds a @ts-expect-error: calling the model-only secret is a type error there.
      expect(typeErrors(WORK, ["binding/*.ts"])).toEqual([]);
    }, 120_000);

    /** Opens the host page, runs the host for `show_counter {start: 5}`, and checks the app at work. */
    async function runApp(tab: Page, mcpUrl: string | undefined, screenshot: string, nameTool = true) {
      const errors: string[] = [];
      tab.on("pageerror", (error) => errors.push(error.message));
      await tab.goto(`${hostSite.origin}/`);
      await tab.waitForFunction(() => typeof window.runHost === "function");
      const report = await tab.evaluate((options) => window.runHost(options), {
        ...(mcpUrl ? { mcpUrl } : {}),
        sandboxUrl: `${sandboxSite.origin}/sandbox.html`,
        call: { name: "show_counter", arguments: { start: 5 } },
        nameTool,
      });
      expect(report.modelTools).toEqual(["show_counter", "secret"]);

      const sandbox = tab.frameLocator("#sandbox");
      const view = sandbox.frameLocator("#view");
      const text = (id: string) => view.locator(`#${id}`).textContent();
      await expect.poll(() => text("value"), { timeout: 20_000 }).toBe("5");
      expect(await text("state")).toBe("connected");
      expect(await text("tool")).toBe("show_counter");
      expect(await text("input")).toBe('{"start":5}');
      expect(await text("theme")).toBe("light");
      // The proxy loaded the view under the policy our uiPolicy builds from the contract's csp.
      expect(await sandbox.locator("body").getAttribute("data-policy")).toBe(uiPolicy(csp));
      expect(tab.frames().map((f) => new URL(f.url()).origin)).toContain(sandboxSite.origin);

      await view.locator("#increment").click();
      await expect.poll(() => text("value")).toBe("6");
      await view.locator("#increment").click();
      await expect.poll(() => text("value")).toBe("7");

      await view.locator("#secret").click();
      await expect
        .poll(() => text("secret-status"))
        .toMatch(/^refused -32602: .*tool "secret" is not available to apps \(its visibility lacks app\)$/);

      // Every call the view made went through the host's bridge: the allowed ones answered, secret refused.
      expect(await tab.evaluate(() => window.hostReport?.appCalls)).toEqual([
        { name: "increment", outcome: "result" },
        { name: "increment", outcome: "result" },
        { name: "secret", outcome: "error" },
      ]);

      await view.locator("#fetch").click();
      await expect.poll(() => text("undeclared")).toBe("TypeError");
      expect(await text("declared")).toBe("200 pong");
      expect(await text("violation")).toMatch(
        new RegExp(`^connect-src ${undeclaredApi.origin.replaceAll(".", "\\.")}/ping$`),
      );
      expect(await text("errors")).toBe("");

      // The view reported its size to the host (the page is taller than its first paragraph).
      const sizes = await tab.evaluate(() => window.hostReport?.sizes ?? []);
      expect(sizes.length).toBeGreaterThan(0);
      expect(sizes.at(-1)!.height).toBeGreaterThan(100);

      const path = join(temp, screenshot);
      await tab.screenshot({ path });
      const png = await readFile(path);
      expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
      expect(png.length).toBeGreaterThan(1000);

      // The host context changes (the view sees the whole context, merged) and the call is cancelled.
      await tab.evaluate(() => window.changeTheme!("dark"));
      await expect.poll(() => text("theme")).toBe("dark");
      await tab.evaluate(() => window.cancelTool!("the user closed it"));
      await expect.poll(() => text("cancelled")).toBe("the user closed it");

      // The host's teardown request reaches the view, which answers it.
      expect(await tab.evaluate(() => window.teardownView!())).toBe(true);
      expect(await text("state")).toBe("torn down");
      expect(errors).toEqual([]);
    }

    /** The generated server of `side`'s project over HTTP (CORS for the host page), our client in the page. */
    async function overHttp(side: ViewSide, nameTool = true) {
      const { counterServer } = (await import(join(projects[side], "server.ts"))) as {
        counterServer(): Parameters<typeof serveHttp>[0];
      };
      const mcp = await serveHttp(counterServer(), { port: 0, cors: { origins: [hostSite.origin] } });
      const tab = await context.newPage();
      try {
        await runApp(tab, mcp.url, `apps-${side}-http${nameTool ? "" : "-unnamed"}.png`, nameTool);
      } finally {
        await tab.close();
        await mcp.close();
      }
    }

    /** The generated server of `side`'s project over stdio under tsx, our client here, reached by the page. */
    async function overStdio(side: ViewSide) {
      const client = createClient({ info: { name: "stdio-host", version: "1.0.0" }, apps: true });
      await client.connect(
        new StdioClientTransport({
          command: TSX,
          args: ["--conditions=mcp-codegen-source", join(projects[side], "server.ts")],
        }),
      );
      try {
        const { tools } = await client.listTools({});
        const routed = appToolCall(client, tools);
        const tab = await context.newPage();
        await tab.exposeFunction("mcpOpen", async (call: { name: string; arguments?: object }) => {
          const tool = tools.find((t) => t.name === call.name)!;
          const result = await client.callTool(call as never);
          const ui = await readUi(client, toolUi(tool)!);
          return { tool, ui, result, modelTools: modelTools(tools).map((t) => t.name) };
        });
        await tab.exposeFunction("mcpAppCall", async (params: { name: string }) => {
          try {
            return { result: await routed(params) };
          } catch (error) {
            const { code, message } = error as { code: number; message: string };
            return { error: { code, message } };
          }
        });
        try {
          await runApp(tab, undefined, `apps-${side}-stdio.png`);
        } finally {
          await tab.close();
        }
      } finally {
        await client.close();
      }
    }

    const SIDES: Record<ViewSide, string> = {
      binding: "our generated binding (app.ts on the runtime's view module)",
      "ext-apps": "ext-apps' App class",
    };
    for (const side of Object.keys(SIDES) as ViewSide[]) {
      it(`${SIDES[side]} as the view, over HTTP: our client in the page, calls through AppBridge and appToolCall`, async () => {
        await overHttp(side);
      }, 90_000);
      it(`${SIDES[side]} as the view, over stdio: our client in the test process, reached through exposed functions`, async () => {
        await overStdio(side);
      }, 90_000);
    }

    it("our generated binding as the view, with a host whose context names no tool (toolInfo is optional): the view's only tool a model can call is shown", async () => {
      await overHttp("binding", false);
    }, 90_000);
  },
);

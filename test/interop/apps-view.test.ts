/**
 * The view side: a contract's generated `app.ts` (on the runtime's view module) speaking to ext-apps'
 * official host, `AppBridge` with its `PostMessageTransport`, whose tool calls go through the SDK v2
 * client to our server over real stdio. The frame is a pair of event targets standing in for the two
 * windows (the browser test puts both in Chromium): messages go by dispatched `message` events with
 * their `source`, asynchronously, as `postMessage` delivers them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { methods } from "../../generated/ext-apps-2026-01-26/methods.js";
import { emitContract } from "../../generator/contract/emit.js";
import { loadContract } from "../../generator/contract/load.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURE = `${REPO}test/fixtures/apps/`;
const OUT = `${REPO}test/.tmp/apps/2025-11-25/`;
const APP = "../.tmp/apps/2025-11-25/app.ts";
const closing: (() => unknown)[] = [];

interface AppUnderTest {
  view: import("@mcp-codegen/runtime/view").View;
  tool: string | undefined;
  callTool(name: string, args: object): Promise<{ structuredContent?: unknown }>;
  close(): void;
}
afterAll(async () => {
  for (const close of closing.reverse()) await close();
});

beforeAll(async () => {
  const contract = await loadContract(`${FIXTURE}contract.yaml`, "contract.yaml");
  mkdirSync(OUT, { recursive: true });
  const files = await emitContract(contract, {
    protocolVersion: "2025-11-25",
    protocolDir: "../../../../generated/2025-11-25",
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${OUT}${name}`, text);
});

/** Two windows: the host's (the global `window` ext-apps listens on) and the view's frame. */
function frame() {
  const hostWindow = new EventTarget();
  const viewWindow = new EventTarget();
  const deliver = (to: EventTarget, data: unknown, source: unknown) =>
    setTimeout(() => to.dispatchEvent(Object.assign(new Event("message"), { data, source })), 0);
  // What each side posts to: the view's `window.parent`, the host's `iframe.contentWindow`.
  const sent: { from: "view" | "host"; message: Record<string, unknown> }[] = [];
  const parent = {
    postMessage: (data: unknown) => {
      sent.push({ from: "view", message: data as Record<string, unknown> });
      deliver(hostWindow, data, contentWindow);
    },
  };
  const contentWindow = {
    postMessage: (data: unknown) => {
      sent.push({ from: "host", message: data as Record<string, unknown> });
      deliver(viewWindow, data, parent);
    },
  };
  const previous = (globalThis as { window?: unknown }).window;
  (globalThis as { window?: unknown }).window = hostWindow;
  closing.push(() => {
    (globalThis as { window?: unknown }).window = previous;
  });
  return { parent, contentWindow, viewWindow: viewWindow as never, sent };
}

async function serverClient(): Promise<Client> {
  const client = new Client({ name: "apps-host", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: `${REPO}node_modules/.bin/tsx`,
      args: ["--conditions=mcp-codegen-source", `${FIXTURE}server.ts`, "2025-11-25"],
      stderr: "pipe",
    }),
  );
  closing.push(() => client.close());
  return client;
}

describe("a generated app.ts view with ext-apps' AppBridge host", () => {
  it("initializes, gets the typed tool input and the checked result, calls an app tool and sizes itself", async () => {
    const client = await serverClient();
    const { parent, contentWindow, viewWindow, sent } = frame();
    const bridge = new AppBridge(
      null,
      { name: "test-host", version: "1.0.0" },
      { serverTools: {} },
      { hostContext: { toolInfo: { tool: { name: "show_counter", inputSchema: { type: "object" } } } } },
    );
    const calls: unknown[] = [];
    bridge.oncalltool = async (params) => {
      calls.push(params);
      return (await client.callTool(params)) as never;
    };
    const sizes: unknown[] = [];
    bridge.onsizechange = (size) => sizes.push(size);
    const initialized = new Promise<void>((resolve) => {
      bridge.oninitialized = () => resolve();
    });
    await bridge.connect(new PostMessageTransport(contentWindow as never, contentWindow as never));

    // Written by beforeAll (test/.tmp is not in a clone): typed where it is emitted, loosely here.
    const { connectApp } = (await import(APP)) as {
      connectApp(uri: string, options: object, handlers: object): Promise<AppUnderTest>;
    };
    const inputs: unknown[] = [];
    const outputs: unknown[] = [];
    const errors: Error[] = [];
    const app = await connectApp(
      "ui://show_counter",
      { appInfo: { name: "counter-view", version: "1.0.0" }, host: parent, events: viewWindow },
      {
        toolInput: (input: unknown) => inputs.push(input),
        toolResult: (output: unknown) => outputs.push(output),
        error: (error: Error) => errors.push(error),
      },
    );
    closing.push(() => app.close());
    await initialized;
    expect(app.view.host.hostInfo).toEqual({ name: "test-host", version: "1.0.0" });
    expect(app.tool).toBe("show_counter");

    // The host runs the tool the model called and hands the view its input and result.
    const shown = await client.callTool({ name: "show_counter", arguments: { start: 5 } });
    await bridge.sendToolInput({ arguments: { start: 5 } });
    await bridge.sendToolResult(shown as never);
    await expect.poll(() => outputs.length).toBe(1);
    expect(inputs).toEqual([{ tool: "show_counter", arguments: { start: 5 } }]);
    expect(outputs[0]).toMatchObject({ tool: "show_counter", structuredContent: { value: 5 } });

    // The view calls an app-only tool through the host and gets the checked output.
    const more = await app.callTool("increment", { by: 3 });
    expect(more.structuredContent).toEqual({ value: 8 });
    expect(calls).toEqual([{ name: "increment", arguments: { by: 3 } }]);

    // A result whose structuredContent fails the output schema is not handed over: an error says why.
    await bridge.sendToolResult({ content: [], structuredContent: { value: "eight" } });
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]!.message).toBe(
      "show_counter returned output that does not match its outputSchema: value: Expected integer",
    );
    expect(outputs).toHaveLength(1);

    app.view.sizeChanged({ width: 300, height: 120 });
    await expect.poll(() => sizes).toEqual([{ width: 300, height: 120 }]);

    // The host's teardown request is answered.
    await bridge.teardownResource({});

    // Every message either side sent passes the generated Apps method table: its direction, params and
    // (for an answer) the result check of the request it answers.
    const requests = new Map<string, string>();
    const seen = new Set<string>();
    for (const { from, message } of sent) {
      if (typeof message.method === "string") {
        const entry = methods[message.method as keyof typeof methods];
        expect(entry, message.method).toBeDefined();
        expect(entry.direction.startsWith(from), `${message.method} from the ${from}`).toBe(true);
        expect(entry.params(message.params ?? {}), message.method).toBeUndefined();
        if ("id" in message) requests.set(`${from}:${String(message.id)}`, message.method);
        seen.add(message.method);
      } else if ("result" in message) {
        const method = requests.get(`${from === "view" ? "host" : "view"}:${String(message.id)}`)!;
        const check = methods[method as keyof typeof methods].result;
        expect(check?.(message.result), `${method} result`).toBeUndefined();
      }
    }
    expect([...seen].sort()).toEqual([
      "tools/call",
      "ui/initialize",
      "ui/notifications/initialized",
      "ui/notifications/size-changed",
      "ui/notifications/tool-input",
      "ui/notifications/tool-result",
      "ui/resource-teardown",
    ]);
  });

  it("with a host whose context names no tool: the view's only tool a model can call is the one shown", async () => {
    // hostContext.toolInfo is optional in the extension: this AppBridge gives none.
    const connectHost = async () => {
      const { parent, contentWindow, viewWindow } = frame();
      const bridge = new AppBridge(null, { name: "plain-host", version: "1.0.0" }, { serverTools: {} });
      const initialized = new Promise<void>((resolve) => {
        bridge.oninitialized = () => resolve();
      });
      await bridge.connect(new PostMessageTransport(contentWindow as never, contentWindow as never));
      return {
        bridge,
        initialized,
        options: { appInfo: { name: "v", version: "1" }, host: parent, events: viewWindow },
      };
    };
    const { connectApp } = (await import(APP)) as {
      connectApp(uri: string, options: object, handlers: object): Promise<AppUnderTest>;
    };

    // show_counter's view serves show_counter and the app-only increment: a model's call is show_counter's.
    const counter = await connectHost();
    const seen: unknown[] = [];
    const errors: Error[] = [];
    const app = await connectApp("ui://show_counter", counter.options, {
      toolInput: (input: unknown) => seen.push(input),
      toolResult: (output: unknown) => seen.push(output),
      error: (error: Error) => errors.push(error),
    });
    closing.push(() => app.close());
    await counter.initialized;
    expect(app.tool).toBe("show_counter");
    await counter.bridge.sendToolInput({ arguments: { start: 2 } });
    await counter.bridge.sendToolResult({ content: [], structuredContent: { value: 2 } });
    await expect.poll(() => seen.length).toBe(2);
    expect(seen).toEqual([
      { tool: "show_counter", arguments: { start: 2 } },
      {
        tool: "show_counter",
        result: { content: [], structuredContent: { value: 2 } },
        structuredContent: { value: 2 },
      },
    ]);
    expect(errors).toEqual([]);

    // The report's view serves report and the model-only summary: either may have opened it, so the
    // input is not guessed; the error says what the host left out.
    const report = await connectHost();
    const reportErrors: Error[] = [];
    const reportSeen: unknown[] = [];
    const reportApp = await connectApp("ui://acme/report", report.options, {
      toolInput: (input: unknown) => reportSeen.push(input),
      error: (error: Error) => reportErrors.push(error),
    });
    closing.push(() => reportApp.close());
    await report.initialized;
    expect(reportApp.tool).toBeUndefined();
    await report.bridge.sendToolInput({ arguments: {} });
    await expect.poll(() => reportErrors.length).toBe(1);
    expect(reportErrors[0]!.message).toBe(
      "ui://acme/report: the host named no tool of this view (hostContext.toolInfo), and a model's call of report or summary opens it",
    );
    expect(reportSeen).toEqual([]);
  });

  it("refuses a connection whose host never answers, and a host's error reaches the caller", async () => {
    const { connectView, ViewRequestError } = await import("@mcp-codegen/runtime/view");
    const silent = new EventTarget();
    const sent: unknown[] = [];
    await expect(
      connectView({
        appInfo: { name: "v", version: "1" },
        host: { postMessage: (m) => sent.push(m) },
        events: silent as never,
        timeoutMs: 50,
      }),
    ).rejects.toThrow(/ui\/initialize: no answer from the host in 50 ms/);
    expect(sent[0]).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      method: "ui/initialize",
      params: { appInfo: { name: "v", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" },
    });

    // Outside a frame (no window.parent) there is no host: refused at once, not at the timeout.
    const started = Date.now();
    await expect(
      connectView({ appInfo: { name: "v", version: "1" }, events: new EventTarget() as never }),
    ).rejects.toThrow(TypeError);
    expect(Date.now() - started).toBeLessThan(1000);

    // A host answering every request with an error: ui/initialize fails with that error.
    const events = new EventTarget();
    const host = {
      postMessage: (m: { id?: number }) =>
        setTimeout(() =>
          events.dispatchEvent(
            Object.assign(new Event("message"), {
              data: { jsonrpc: "2.0", id: m.id, error: { code: -32603, message: "no" } },
              source: host,
            }),
          ),
        ),
    };
    const error = await connectView({
      appInfo: { name: "v", version: "1" },
      host,
      events: events as never,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ViewRequestError);
    expect(error).toMatchObject({ code: -32603, message: "no" });
  });
});

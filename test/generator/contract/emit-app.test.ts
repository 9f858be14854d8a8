/**
 * A contract's `app.ts` (the view side's binding) type-checks with the contract's types: tool input as a
 * union by tool name, checked outputs typed, `callTool` typed by name and refused for a tool the view
 * may not call, an unknown view refused.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContract } from "../../../generator/contract/load.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/contract-app/`;

const VIEW = `
import { connectApp } from "./contract/app.js";
const options = { appInfo: { name: "view", version: "1.0.0" } };
export const app = await connectApp("ui://show_counter", options, {
  toolInput: (input) => {
    if (input.tool === "show_counter") {
      const start: number | undefined = input.arguments.start;
      void start;
    } else {
      const by: number = input.arguments.by;
      void by;
    }
  },
  toolResult: (output) => {
    const value: number | undefined = output.structuredContent?.value;
    void value;
  },
});
const more = await app.callTool("increment", { by: 1 });
export const value: number | undefined = more.structuredContent?.value;
export const tool: "show_counter" | "increment" | undefined = app.tool;
// @ts-expect-error summary's visibility is [model]: a view may not call it
await app.callTool("summary", {});
// @ts-expect-error by is an integer
await app.callTool("increment", { by: "1" });
// @ts-expect-error report's view serves report and summary alone
export const wrong: "show_counter" | undefined = (await connectApp("ui://acme/report", options)).tool;
// @ts-expect-error no such view
await connectApp("ui://nothing", options);
`;

it("emits an app.ts whose types follow the contract, for 2025-11-25 and 2026-07-28", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/apps/contract.yaml`, "contract.yaml");
  rmSync(OUT, { recursive: true, force: true });
  for (const version of ["2025-11-25", "2026-07-28"]) {
    const files = await emitContract(contract, {
      protocolVersion: version,
      protocolDir: `../../../../../generated/${version}`,
    });
    expect(Object.keys(files)).toContain("app.ts");
    mkdirSync(`${OUT}${version}/contract`, { recursive: true });
    for (const [name, text] of Object.entries(files))
      writeFileSync(`${OUT}${version}/contract/${name}`, text);
    writeFileSync(`${OUT}${version}/view.ts`, VIEW);
  }
  const include = [
    "2025-11-25/**/*.ts",
    "2026-07-28/**/*.ts",
    "../../../generated/2025-11-25/*.ts",
    "../../../generated/2026-07-28/**/*.ts",
  ];
  expect(typeErrors(OUT, include)).toEqual([]);
});

it("emits no app.ts for a contract without views", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/contract/contract.yaml`, "contract.yaml");
  const files = await emitContract(contract, { protocolVersion: "2025-11-25" });
  expect(Object.keys(files)).not.toContain("app.ts");
});

it("keeps tools named like Object.prototype members apart: a __proto__ tool's output is checked", async () => {
  const dir = `${OUT}prototype/`;
  mkdirSync(`${dir}contract`, { recursive: true });
  writeFileSync(`${dir}v.html`, "<!doctype html><title>v</title>\n");
  // JSON text, so that `__proto__` is an own key of the document.
  writeFileSync(
    `${dir}contract.json`,
    `{ "tools": {
      "__proto__": { "inputSchema": { "type": "object" }, "ui": "./v.html",
        "outputSchema": { "type": "object", "properties": { "n": { "type": "integer" } }, "required": ["n"] } },
      "constructor": { "inputSchema": { "type": "object" }, "ui": { "app": "__proto__" } }
    } }`,
  );
  const contract = await loadContract(`${dir}contract.json`, "contract.json");
  expect(contract.ui!.map((u) => [u.uri, u.tools.map((t) => t.name)])).toEqual([
    ["ui://__proto__", ["__proto__", "constructor"]],
  ]);
  const files = await emitContract(contract, {
    protocolVersion: "2025-11-25",
    protocolDir: "../../../../../generated/2025-11-25",
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}contract/${name}`, text);
  const { connectApp } = (await import(`${dir}contract/app.ts`)) as {
    connectApp(uri: string, options: object, handlers: object): Promise<{ close(): void }>;
  };
  // A host that answers ui/initialize naming the __proto__ tool, then sends a result that fails its output.
  const events = new EventTarget();
  const post = (data: unknown) =>
    setTimeout(() => events.dispatchEvent(Object.assign(new Event("message"), { data, source: host })));
  const host = {
    postMessage: (m: { id?: number; method: string }) => {
      if (m.method !== "ui/initialize") return;
      post({
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: "2026-01-26",
          hostInfo: { name: "h", version: "1" },
          hostCapabilities: {},
          hostContext: { toolInfo: { tool: { name: "__proto__" } } },
        },
      });
    },
  };
  const errors: Error[] = [];
  const outputs: unknown[] = [];
  const app = await connectApp(
    "ui://__proto__",
    { appInfo: { name: "v", version: "1" }, host, events },
    { error: (e: Error) => errors.push(e), toolResult: (o: unknown) => outputs.push(o) },
  );
  post({
    jsonrpc: "2.0",
    method: "ui/notifications/tool-result",
    params: { content: [], structuredContent: { n: "x" } },
  });
  post({
    jsonrpc: "2.0",
    method: "ui/notifications/tool-result",
    params: { content: [], structuredContent: { n: 2 } },
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  app.close();
  expect(errors.map((e) => e.message)).toEqual([
    "__proto__ returned output that does not match its outputSchema: n: Expected integer",
  ]);
  expect(outputs).toEqual([
    { tool: "__proto__", result: { content: [], structuredContent: { n: 2 } }, structuredContent: { n: 2 } },
  ]);
});

it("names the view's tool without the host's toolInfo when only one of its tools is the model's, and only then", async () => {
  const contract = await loadContract(`${REPO}test/fixtures/apps/contract.yaml`, "contract.yaml");
  const dir = `${OUT}no-tool-info/`;
  mkdirSync(`${dir}contract`, { recursive: true });
  const files = await emitContract(contract, {
    protocolVersion: "2025-11-25",
    protocolDir: "../../../../../generated/2025-11-25",
  });
  for (const [name, text] of Object.entries(files)) writeFileSync(`${dir}contract/${name}`, text);
  const { connectApp } = (await import(`${dir}contract/app.ts`)) as {
    connectApp(uri: string, options: object, handlers: object): Promise<{ tool?: string; close(): void }>;
  };
  /** A host whose hostContext has no toolInfo (it is optional), then the call's input and result. */
  const run = async (uri: string) => {
    const events = new EventTarget();
    const post = (data: unknown) =>
      setTimeout(() => events.dispatchEvent(Object.assign(new Event("message"), { data, source: host })));
    const host = {
      postMessage: (m: { id?: number; method: string }) => {
        if (m.method !== "ui/initialize") return;
        post({
          jsonrpc: "2.0",
          id: m.id,
          result: {
            protocolVersion: "2026-01-26",
            hostInfo: { name: "h", version: "1" },
            hostCapabilities: {},
            hostContext: {},
          },
        });
      },
    };
    const seen: unknown[] = [];
    const app = await connectApp(
      uri,
      { appInfo: { name: "v", version: "1" }, host, events },
      {
        error: (e: Error) => seen.push(e.message),
        toolInput: (input: unknown) => seen.push(input),
        toolResult: (output: { tool: string; structuredContent?: unknown }) =>
          seen.push([output.tool, output.structuredContent]),
      },
    );
    post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: { start: 5 } } });
    post({
      jsonrpc: "2.0",
      method: "ui/notifications/tool-result",
      params: { content: [], structuredContent: { value: 5 } },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    app.close();
    return { tool: app.tool, seen };
  };
  // show_counter's view also serves increment, whose visibility is [app]: the model calls show_counter alone.
  expect(await run("ui://show_counter")).toEqual({
    tool: "show_counter",
    seen: [{ tool: "show_counter", arguments: { start: 5 } }, ["show_counter", { value: 5 }]],
  });
  // report's view serves report and summary, both the model's: which one is not known.
  expect(await run("ui://acme/report")).toEqual({
    tool: undefined,
    seen: [
      "ui://acme/report: the host named no tool of this view (hostContext.toolInfo), and a model's call of report or summary opens it",
      "ui://acme/report: the host named no tool of this view (hostContext.toolInfo), and a model's call of report or summary opens it",
    ],
  });
});

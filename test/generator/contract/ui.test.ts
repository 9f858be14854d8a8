/** A tool's `ui:` (MCP Apps): the three forms compiled to `_meta` and `ui://` resources, and every check. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadContract } from "../../../generator/contract/load.js";

const FIXTURE = fileURLToPath(new URL("../../fixtures/apps/contract.yaml", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "mcp-contract-ui-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const HTML = "<!doctype html><html><body>view</body></html>";

/** A project folder with `contract.yaml` (tools `a` and `b`, `a` with `ui`), a view and `files`. */
function project(ui: string, files: Record<string, string> = {}, more = ""): string {
  const dir = join(root, String(n++));
  for (const [name, text] of Object.entries({ "ui/a.html": HTML, ...files })) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  const contract = `tools:\n  a:\n    inputSchema: { type: object }\n    ui: ${ui}\n  b:\n    inputSchema: { type: object }\n${more}`;
  writeFileSync(join(dir, "contract.yaml"), contract);
  return join(dir, "contract.yaml");
}
const refused = (path: string, root?: string) =>
  loadContract(path, "contract.yaml", undefined, root).then(
    () => "loaded",
    (e: Error) => e.message,
  );

describe("ui: in the contract", () => {
  it("links each tool to its view and makes the views ui:// resources", async () => {
    const read = new Set<string>();
    const contract = await loadContract(FIXTURE, "contract.yaml", read);
    const meta = Object.fromEntries(contract.tools.map((t) => [t.name, t.definition._meta]));
    expect(meta).toEqual({
      show_counter: {
        ui: { resourceUri: "ui://show_counter", visibility: ["model", "app"] },
        "ui/resourceUri": "ui://show_counter",
      },
      increment: {
        ui: { resourceUri: "ui://show_counter", visibility: ["app"] },
        "ui/resourceUri": "ui://show_counter",
      },
      report: {
        "acme/owner": "reports",
        ui: { resourceUri: "ui://acme/report", visibility: ["model", "app"] },
        "ui/resourceUri": "ui://acme/report",
      },
      summary: {
        ui: { resourceUri: "ui://acme/report", visibility: ["model"] },
        "ui/resourceUri": "ui://acme/report",
      },
      plain: undefined,
    });
    expect(contract.ui!.map((u) => [u.uri, u.tools.map((t) => t.name)])).toEqual([
      ["ui://show_counter", ["show_counter", "increment"]],
      ["ui://acme/report", ["report", "summary"]],
    ]);
    expect(contract.ui![1]!.definition).toEqual({
      uri: "ui://acme/report",
      name: "report",
      mimeType: "text/html;profile=mcp-app",
      _meta: {
        ui: {
          csp: {
            connectDomains: ["https://api.example.com"],
            resourceDomains: ["https://*.example-cdn.com:8443"],
          },
          permissions: { clipboardWrite: {} },
          prefersBorder: true,
        },
      },
    });
    expect(contract.ui![1]!.content).toEqual({ text: expect.stringContaining("<h1>Report ✓</h1>") });
    // The views are inputs of the run: the stamp hashes them, so an edited view regenerates.
    expect([...read].filter((p) => p.endsWith(".html")).map((p) => p.slice(dirname(FIXTURE).length))).toEqual(
      ["/ui/counter.html", "/bundle/report.html"],
    );
  });

  it("hashes the view's bytes into the contract's sha256", async () => {
    const path = project("./ui/a.html");
    const before = (await loadContract(path)).sha256;
    writeFileSync(join(dirname(path), "ui/a.html"), `${HTML}\n`);
    expect((await loadContract(path)).sha256).not.toBe(before);
  });

  it("serves bytes that are not UTF-8 as base64", async () => {
    const path = project("./ui/a.html");
    writeFileSync(join(dirname(path), "ui/a.html"), Buffer.from([0x3c, 0xff, 0x3e]));
    expect((await loadContract(path)).ui![0]!.content).toEqual({ blob: "PP8+" });
  });

  const cases: [string, string, Record<string, string>?, string?][] = [
    ["a missing file", "./ui/none.html", {}, "tools.a.ui: ./ui/none.html: no such file"],
    ["a folder", "./ui", {}, "tools.a.ui: ./ui: not a file"],
    [
      "a file outside the project",
      "../outside.html",
      {},
      "tools.a.ui: ../outside.html is outside the project",
    ],
    [
      "a URI that is not ui://",
      "{ html: ./ui/a.html, uri: https://x/y }",
      {},
      "tools.a.ui.uri: must be a ui:// URI",
    ],
    [
      "a URI another resource has",
      "{ html: ./ui/a.html, uri: ui://taken }",
      {},
      "tools.a.ui.uri: ui://taken is already the URI of resources.r",
    ],
    ["app naming no tool", "{ app: nobody }", {}, "tools.a.ui.app: names no tool of this contract: nobody"],
    ["app naming a tool without its own UI", "{ app: b }", {}, "tools.a.ui.app: tool b has no UI of its own"],
    [
      "an empty visibility",
      "{ html: ./ui/a.html, visibility: [] }",
      {},
      "tools.a.ui.visibility: must be a non-empty list",
    ],
    [
      "a visibility that is neither",
      "{ html: ./ui/a.html, visibility: [model, user] }",
      {},
      '"user" is not model or app',
    ],
    ["a repeated visibility", "{ html: ./ui/a.html, visibility: [app, app] }", {}, "app is listed twice"],
    [
      "a CSP entry with a path",
      "{ html: ./ui/a.html, csp: { connectDomains: ['https://api.example.com/v1'] } }",
      {},
      'tools.a.ui.csp.connectDomains[0]: "https://api.example.com/v1" is not an origin',
    ],
    [
      "a CSP entry that adds a directive",
      "{ html: ./ui/a.html, csp: { resourceDomains: ['https://a.com; script-src *'] } }",
      {},
      "tools.a.ui.csp.resourceDomains[0]",
    ],
    [
      "a CSP keyword",
      "{ html: ./ui/a.html, csp: { frameDomains: [\"'self'\"] } }",
      {},
      "tools.a.ui.csp.frameDomains[0]",
    ],
    [
      "a wildcard past the first label",
      "{ html: ./ui/a.html, csp: { connectDomains: ['https://a.*.com'] } }",
      {},
      "is not an origin",
    ],
    [
      "an unknown CSP field",
      "{ html: ./ui/a.html, csp: { scriptDomains: [] } }",
      {},
      "tools.a.ui.csp.scriptDomains: unknown field",
    ],
    [
      "an unknown permission",
      "{ html: ./ui/a.html, permissions: { usb: {} } }",
      {},
      "tools.a.ui.permissions.usb: unknown permission",
    ],
    [
      "a permission with settings",
      "{ html: ./ui/a.html, permissions: { camera: { always: true } } }",
      {},
      "tools.a.ui.permissions.camera: must be {}",
    ],
    [
      "a prefersBorder that is no boolean",
      "{ html: ./ui/a.html, prefersBorder: yes }",
      {},
      "tools.a.ui.prefersBorder: must be true or false",
    ],
    ["an unknown field", "{ html: ./ui/a.html, size: 3 }", {}, "tools.a.ui.size: unknown field"],
    [
      "app with a view's field",
      "{ app: b, csp: {} }",
      {},
      "tools.a.ui.csp: unknown field (allowed: app, visibility)",
    ],
    ["neither form", "42", {}, "tools.a.ui: must be an HTML path"],
    [
      "a view's fields without its html",
      "{ csp: { connectDomains: ['https://api.example.com'] } }",
      {},
      "tools.a.ui: must name its view (html: <file>), another tool's (app: <tool>), or only a visibility",
    ],
    ["an empty object", "{}", {}, "tools.a.ui: must name its view (html: <file>)"],
    ["an html that is no path", "{ html: 42 }", {}, "tools.a.ui.html: must name an HTML file"],
  ];
  it.each(cases)("refuses %s, naming the place", async (_, ui, files, message) => {
    const more = "resources:\n  r: { uri: 'ui://taken' }\n";
    const path = project(ui, files, more);
    writeFileSync(join(dirname(path), "..", "outside.html"), HTML);
    const got = await refused(path);
    expect(got).toContain("contract.yaml: ");
    expect(got).toContain(message);
  });

  it("refuses a view reached through a link out of the project", async () => {
    const path = project("./ui/linked.html");
    const outside = join(root, `outside-${n}.html`);
    writeFileSync(outside, HTML);
    symlinkSync(outside, join(dirname(path), "ui/linked.html"));
    expect(await refused(path)).toContain("tools.a.ui: ./ui/linked.html is outside the project");
  });

  it("takes a view elsewhere in the project when the project root is given", async () => {
    const path = project("../elsewhere.html");
    writeFileSync(join(dirname(path), "..", "elsewhere.html"), HTML);
    expect(await refused(path)).toContain("outside the project");
    expect(await refused(path, join(dirname(path), ".."))).toBe("loaded");
  });

  it("refuses _meta.ui and the flat key written by hand beside ui:", async () => {
    for (const key of ["ui", "ui/resourceUri"]) {
      const dir = dirname(project("./ui/a.html"));
      writeFileSync(
        join(dir, "contract.yaml"),
        `tools:\n  a:\n    inputSchema: { type: object }\n    _meta: { ${JSON.stringify(key)}: x }\n    ui: ./ui/a.html\n`,
      );
      expect(await refused(join(dir, "contract.yaml"))).toContain(
        `tools.a._meta: ${JSON.stringify(key)} is written from ui:; remove it from _meta`,
      );
    }
  });

  it("takes a visibility alone: a tool without a view, hidden from views or from the model", async () => {
    const path = project(
      "./ui/a.html",
      {},
      "    ui: { visibility: [model] }\n  c:\n    inputSchema: { type: object }\n    ui: { visibility: [app] }\n",
    );
    const contract = await loadContract(path, "contract.yaml");
    expect(Object.fromEntries(contract.tools.map((t) => [t.name, t.definition._meta]))).toEqual({
      a: { ui: { resourceUri: "ui://a", visibility: ["model", "app"] }, "ui/resourceUri": "ui://a" },
      b: { ui: { visibility: ["model"] } },
      c: { ui: { visibility: ["app"] } },
    });
    expect(contract.tools.find((t) => t.name === "b")!.ui).toEqual({ visibility: ["model"] });
    // No view of its own, and no view serves it: only a's view, serving a.
    expect(contract.ui!.map((u) => [u.uri, u.tools.map((t) => t.name)])).toEqual([["ui://a", ["a"]]]);
  });

  it("leaves a contract without ui: as it was: no views, no _meta", async () => {
    const dir = join(root, String(n++));
    mkdirSync(dir);
    writeFileSync(join(dir, "c.yaml"), "tools:\n  a:\n    inputSchema: { type: object }\n");
    const none = await loadContract(join(dir, "c.yaml"));
    expect(none.ui).toBeUndefined();
    expect(none.tools[0]!.definition._meta).toBeUndefined();
    expect(none.tools[0]!.ui).toBeUndefined();
  });
});

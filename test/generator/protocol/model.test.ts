import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseSchema } from "../../../generator/protocol/load.js";
import { buildModel, type ProtocolModel } from "../../../generator/protocol/model.js";
import { registryFacts } from "../../../generator/protocol/protocol-model.js";
import { unusedTableEntries } from "../../../generator/protocol/tables.js";
import { getVersion } from "../../../schema/registry.js";
import { schemaPath, VERSIONS } from "../paths.js";

const used = new Set<string>();
const models = new Map<string, ProtocolModel>(
  VERSIONS.map((v) => {
    const parsed = parseSchema(readFileSync(schemaPath(v), "utf8"), schemaPath(v));
    const meta = { ...registryFacts(v), schemaSha256: getVersion(v)!.sha256, generatorVersion: "test" };
    return [v, buildModel(parsed, meta, used)];
  }),
);
const find = (v: string, method: string, direction = "client-to-server") =>
  models.get(v)!.methods.find((m) => m.method === method && m.direction === direction);

describe("protocol model", () => {
  it.each(VERSIONS)("%s: every request has a result that exists in that version", (v) => {
    const model = models.get(v)!;
    const names = new Set(model.definitions.map((d) => d.name));
    const requests = model.methods.filter((m) => m.kind === "request");
    expect(requests.length).toBeGreaterThan(8);
    for (const r of requests) expect(names.has(r.result!), `${r.method} → ${r.result}`).toBe(true);
    for (const n of model.methods.filter((m) => m.kind === "notification")) expect(n.result).toBeNull();
  });

  it.each(VERSIONS)("%s: every message comes from the schema's unions, with its method const", (v) => {
    const model = models.get(v)!;
    const schema = JSON.parse(readFileSync(schemaPath(v), "utf8"));
    const defs = schema.$defs ?? schema.definitions;
    for (const m of model.methods) expect(defs[m.definition].properties.method.const).toBe(m.method);
    const unionSize = (name: string) => (defs[name] ? (defs[name].anyOf?.length ?? 1) : 0);
    const count = (kind: string, direction: string) =>
      model.methods.filter((m) => m.kind === kind && m.direction === direction).length;
    expect(count("request", "client-to-server")).toBe(unionSize("ClientRequest"));
    expect(count("notification", "client-to-server")).toBe(unionSize("ClientNotification"));
    expect(count("notification", "server-to-client")).toBe(unionSize("ServerNotification"));
    expect(count("request", "server-to-client")).toBe(
      unionSize("ServerRequest") || unionSize("InputRequest"),
    );
  });

  it.each(VERSIONS)("%s: every capability named exists in that version's capabilities schema", (v) => {
    const schema = JSON.parse(readFileSync(schemaPath(v), "utf8"));
    const defs = schema.$defs ?? schema.definitions;
    const resolve = (n: { $ref?: string }) => (n?.$ref ? defs[n.$ref.split("/").pop()!] : n);
    for (const m of models.get(v)!.methods) {
      if (!m.capability) continue;
      let node = defs[m.capability.side === "server" ? "ServerCapabilities" : "ClientCapabilities"];
      for (const key of m.capability.path) {
        node = resolve(node.properties?.[key]);
        expect(node, `${v} ${m.method} ${m.capability.path.join(".")}`).toBeDefined();
      }
    }
  });

  it("derives directions, results and capabilities the spec text states", () => {
    for (const v of VERSIONS)
      expect(find(v, "tools/call")).toMatchObject({
        handler: "callTool",
        result: "CallToolResult",
        capability: { side: "server", path: ["tools"] },
      });
    expect(find("2024-11-05", "sampling/createMessage", "server-to-client")).toMatchObject({
      capability: { side: "client", path: ["sampling"] },
      delivery: "message",
    });
    expect(find("2025-06-18", "elicitation/create", "server-to-client")).toMatchObject({
      handler: "elicit",
      result: "ElicitResult",
      capability: { side: "client", path: ["elicitation"] },
    });
    expect(find("2026-07-28", "elicitation/create", "server-to-client")).toMatchObject({ delivery: "input" });
    expect(find("2025-11-25", "resources/subscribe")).toMatchObject({
      result: "EmptyResult",
      capability: { path: ["resources", "subscribe"] },
    });
    expect(find("2025-11-25", "ping")).toMatchObject({ result: "EmptyResult", capability: null });
    expect(find("2025-11-25", "ping", "server-to-client")).toMatchObject({ result: "EmptyResult" });
    expect(find("2025-11-25", "resources/subscribe")?.capability?.leaf).toBe("flag");
    expect(find("2025-11-25", "tools/list")?.capability?.leaf).toBe("object");
    expect(find("2025-11-25", "tools/call")?.errorAsResult).toBe(true);
    expect(find("2025-11-25", "prompts/get")?.errorAsResult).toBe(false);
    expect(models.get("2025-06-18")!.supportedVersions.map((s) => s.version)).toEqual([
      "2025-06-18",
      "2025-03-26",
      "2024-11-05",
    ]);
    expect(models.get("2025-03-26")!.batches).toBe(true);
    expect(find("2025-11-25", "notifications/tools/list_changed", "server-to-client")).toMatchObject({
      handler: "onToolListChanged",
      capability: { side: "server", path: ["tools", "listChanged"] },
    });
    expect(find("2025-11-25", "notifications/roots/list_changed")).toMatchObject({
      capability: { side: "client", path: ["roots", "listChanged"] },
    });
    expect(find("2024-11-05", "completion/complete")).toMatchObject({ capability: null });
    expect(find("2025-03-26", "completion/complete")).toMatchObject({
      capability: { side: "server", path: ["completions"] },
    });
    expect(find("2026-07-28", "server/discover")).toMatchObject({
      handler: "discover",
      result: "DiscoverResult",
    });
    expect(find("2026-07-28", "notifications/cancelled")).toMatchObject({
      definition: "ClientNotification",
      handler: "onCancelled",
    });
  });

  it("knows each version's lifecycle style", () => {
    expect(VERSIONS.map((v) => models.get(v)!.lifecycle)).toEqual([
      "initialize",
      "initialize",
      "initialize",
      "initialize",
      "discover",
      "discover",
    ]);
  });

  it("is plain JSON data", () => {
    for (const model of models.values()) expect(JSON.parse(JSON.stringify(model))).toEqual(model);
  });

  it("uses every table entry in some version, and reports an entry that matches nothing", () => {
    expect(unusedTableEntries(used)).toEqual([]);
    expect(unusedTableEntries([])).toContain("RESULT_OF:PingRequest");
  });
});

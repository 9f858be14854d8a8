import { describe, expect, it } from "vitest";
import { appsModel } from "../../../generator/protocol/apps-model.js";
import { hoistNestedDefinitions } from "../../../generator/protocol/definitions-apart.js";
import { SchemaLoadError } from "../../../generator/protocol/load.js";
import { ModelError } from "../../../generator/protocol/model.js";
import { loadExtensionSource } from "../../../schema/extension-loader.js";

const KEY = "io.modelcontextprotocol/ui@2026-01-26";
const source = await loadExtensionSource({ extension: KEY });
const input = (text: string) => ({
  extension: KEY,
  publishedBy: "test",
  text,
  sha256: source.sha256,
  location: "apps.json",
});

describe("each definition read as its own document", () => {
  it("moves a definition's own $defs to the top and points its references there", () => {
    const json = { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/$defs/__schema0" } }] };
    const doc = {
      $defs: {
        A: { type: "object", properties: { v: { $ref: "#/$defs/__schema0" } }, $defs: { __schema0: json } },
        B: { $ref: "#/$defs/A" },
      },
    };
    expect(hoistNestedDefinitions(doc, "f.json")).toEqual(["ADefsSchema0"]);
    expect(doc.$defs).toEqual({
      A: { type: "object", properties: { v: { $ref: "#/$defs/ADefsSchema0" } } },
      B: { $ref: "#/$defs/A" },
      ADefsSchema0: {
        anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/$defs/ADefsSchema0" } }],
      },
    });
  });

  it("refuses a name that is taken, naming the place", () => {
    const doc = { $defs: { A: { $defs: { x: {} } }, ADefsX: {} } };
    expect(() => hoistNestedDefinitions(doc, "f.json")).toThrow(SchemaLoadError);
    expect(() =>
      hoistNestedDefinitions({ $defs: { A: { $defs: { x: {} } }, ADefsX: {} } }, "f.json"),
    ).toThrow(/f\.json#\/\$defs\/A\/\$defs\/x: .*ADefsX is already a definition/);
  });
});

describe("the Apps protocol's model", () => {
  it("has every ui/* message with its direction and result, and the core messages a view sends", () => {
    const model = appsModel(input(source.text));
    expect(model.protocolVersion).toBe("2026-01-26");
    expect(model.id).toBe("io.modelcontextprotocol/ui");
    expect(model.hoisted).toEqual([
      "McpUiHostContextChangedNotificationDefsSchema0",
      "McpUiHostContextDefsSchema0",
      "McpUiInitializeResultDefsSchema0",
    ]);
    const row = (method: string) => model.methods.find((m) => m.method === method);
    expect(row("ui/initialize")).toMatchObject({
      kind: "request",
      direction: "view-to-host",
      result: "McpUiInitializeResult",
      resultSource: "apps",
    });
    expect(row("ui/notifications/tool-result")).toMatchObject({
      kind: "notification",
      direction: "host-to-view",
    });
    expect(row("ui/resource-teardown")).toMatchObject({ direction: "host-to-view" });
    expect(row("ui/notifications/sandbox-resource-ready")).toMatchObject({ direction: "host-to-proxy" });
    expect(row("ui/update-model-context")).toMatchObject({ result: "EmptyResult", resultSource: "core" });
    expect(row("tools/call")).toMatchObject({ source: "core", definition: "CallToolRequest" });
    expect(model.methods.filter((m) => m.source === "apps")).toHaveLength(17);
    expect(model.methods.map((m) => m.method)).toEqual([...model.methods.map((m) => m.method)].sort());
  });

  it("fails on a message the direction table does not know, and on an entry that matches nothing", () => {
    const doc = JSON.parse(source.text) as { $defs: Record<string, unknown> };
    doc.$defs.McpUiNewNotification = {
      type: "object",
      properties: { method: { type: "string", const: "ui/notifications/new" } },
      required: ["method"],
    };
    expect(() => appsModel(input(JSON.stringify(doc)))).toThrow(
      /no direction for McpUiNewNotification: add it to APPS_DIRECTION/,
    );
    delete doc.$defs.McpUiNewNotification;
    delete doc.$defs.McpUiSizeChangedNotification;
    expect(() => appsModel(input(JSON.stringify(doc)))).toThrow(ModelError);
    expect(() => appsModel(input(JSON.stringify(doc)))).toThrow(
      /APPS_DIRECTION entry McpUiSizeChangedNotification matches no message/,
    );
  });
});

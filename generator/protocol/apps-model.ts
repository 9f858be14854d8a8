/**
 * The MCP Apps protocol's model (`io.modelcontextprotocol/ui`, versioned apart from MCP): its schema's
 * definitions, each read as its own document (definitions-apart.ts), and its messages: every definition
 * with a `method` const, its direction from apps-tables.ts, its result by name (`<X>Request` →
 * `<X>Result`) or from the table, plus the core messages a view may send.
 */

import { splitExtensionKey } from "../../schema/registry.js";
import { GENERATOR_VERSION } from "../util/version.js";
import { applyAppsFixes } from "./apps-fixes.js";
import {
  APPS_CORE_MESSAGES,
  APPS_CORE_VERSION,
  APPS_DIRECTION,
  APPS_RESULT_OF,
  APPS_SCHEMA_FIXES,
  type AppsDirection,
} from "./apps-tables.js";
import { hoistNestedDefinitions } from "./definitions-apart.js";
import { type Dialect, parseSchema } from "./load.js";
import { collectRefs, type DefinitionModel, ModelError } from "./model.js";

export interface AppsMethod {
  method: string;
  kind: "request" | "notification";
  direction: AppsDirection;
  /** The message's definition: in this schema (`apps`) or in the core protocol of APPS_CORE_VERSION (`core`). */
  definition: string;
  source: "apps" | "core";
  /** The result's definition (requests only), in `resultSource`'s schema. */
  result: string | null;
  resultSource: "apps" | "core";
}

export interface AppsModel {
  /** `io.modelcontextprotocol/ui@2026-01-26`. */
  extension: string;
  id: string;
  /** The Apps protocol version, spoken in `ui/initialize`. */
  protocolVersion: string;
  /** Where the schema comes from, e.g. `@modelcontextprotocol/ext-apps@2.0.4 ./schema.json`. */
  publishedBy: string;
  schemaSha256: string;
  generatorVersion: string;
  dialect: Dialect;
  coreVersion: string;
  /** Definitions made from a definition's own `$defs` (definitions-apart.ts). */
  hoisted: string[];
  /** APPS_SCHEMA_FIXES entries applied. */
  fixes: { key: string; why: string }[];
  definitions: DefinitionModel[];
  /** Sorted by method. */
  methods: AppsMethod[];
}

export interface AppsSource {
  extension: string;
  publishedBy: string;
  text: string;
  sha256: string;
  location: string;
}

export function appsModel(source: AppsSource): AppsModel {
  const file = source.location;
  const fail = (pointer: string, reason: string): never => {
    throw new ModelError(file, pointer, reason);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(source.text);
  } catch (e) {
    throw new ModelError(file, "", `not valid JSON (${(e as Error).message})`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new ModelError(file, "", "not a JSON Schema: the document is not an object");
  const hoisted = hoistNestedDefinitions(doc as Record<string, unknown>, file);
  const fixes = applyAppsFixes(doc as Record<string, unknown>);
  for (const e of APPS_SCHEMA_FIXES)
    if (!fixes.includes(e.key)) fail("", `APPS_SCHEMA_FIXES entry ${e.key} changes nothing in the schema`);
  const parsed = parseSchema(JSON.stringify(doc), file);
  const defs = parsed.definitions;

  const definitions: DefinitionModel[] = Object.keys(defs)
    .sort()
    .map((name) => {
      const schema = defs[name]!;
      return {
        name,
        ...(schema.description === undefined ? {} : { description: schema.description }),
        schema,
        refs: [...collectRefs(schema)].sort(),
      };
    });

  const usedDirections = new Set<string>();
  const usedResults = new Set<string>();
  const methods: AppsMethod[] = [];
  for (const def of definitions) {
    const method = def.schema.properties?.method?.const;
    if (method === undefined) continue;
    if (typeof method !== "string") fail(`${def.schema.pointer}/properties/method`, "a non-string method");
    const kind = def.name.endsWith("Request")
      ? "request"
      : def.name.endsWith("Notification")
        ? "notification"
        : fail(def.schema.pointer, `${def.name} has a method but is neither a Request nor a Notification`);
    const direction = APPS_DIRECTION.find((e) => e.key === def.name);
    if (!direction)
      fail(def.schema.pointer, `no direction for ${def.name}: add it to APPS_DIRECTION (apps-tables.ts)`);
    usedDirections.add(def.name);
    let result: string | null = null;
    let resultSource: AppsMethod["resultSource"] = "apps";
    if (kind === "request") {
      const entry = APPS_RESULT_OF.find((e) => e.key === def.name);
      const byName = `${def.name.replace(/Request$/, "")}Result`;
      if (entry) {
        if (defs[byName]) fail(def.schema.pointer, `APPS_RESULT_OF names ${def.name}, yet ${byName} exists`);
        usedResults.add(def.name);
        result = entry.value;
        resultSource = "core";
      } else if (defs[byName]) result = byName;
      else
        fail(def.schema.pointer, `no result for ${def.name} (neither ${byName} nor an APPS_RESULT_OF entry)`);
    }
    methods.push({
      method: method as string,
      kind,
      direction: direction!.value,
      definition: def.name,
      source: "apps",
      result,
      resultSource,
    });
  }
  for (const e of APPS_DIRECTION)
    if (!usedDirections.has(e.key)) fail("/$defs", `APPS_DIRECTION entry ${e.key} matches no message`);
  for (const e of APPS_RESULT_OF)
    if (!usedResults.has(e.key)) fail("/$defs", `APPS_RESULT_OF entry ${e.key} matches no request`);
  for (const e of APPS_CORE_MESSAGES) {
    if (methods.some((m) => m.method === e.key))
      fail("/$defs", `${e.key} is both a core and an Apps message`);
    methods.push({
      method: e.key,
      kind: e.value.kind,
      direction: "view-to-host",
      definition: e.value.definition,
      source: "core",
      result: e.value.result,
      resultSource: "core",
    });
  }
  methods.sort((a, b) => (a.method < b.method ? -1 : a.method > b.method ? 1 : 0));

  const { id, version } = splitExtensionKey(source.extension);
  return {
    extension: source.extension,
    id,
    protocolVersion: version,
    publishedBy: source.publishedBy,
    schemaSha256: source.sha256,
    generatorVersion: GENERATOR_VERSION,
    dialect: parsed.dialect,
    coreVersion: APPS_CORE_VERSION,
    hoisted,
    fixes: APPS_SCHEMA_FIXES.filter((e) => fixes.includes(e.key)).map((e) => ({ key: e.key, why: e.why })),
    definitions,
    methods,
  };
}

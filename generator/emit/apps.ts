/**
 * The MCP Apps protocol's files (`generated/ext-apps-<version>/`): types.ts, schemas.ts and validators.ts
 * from the same emitters as a protocol version's, and methods.ts, the method table of every `ui/*`
 * message and of the core messages a view may send (direction, params and result checks, and their
 * types). index.ts re-exports them. Deterministic: definitions and methods are sorted.
 */

import { extensionHeader, formatTs } from "../output/write.js";
import type { AppsModel } from "../protocol/apps-model.js";
import { commentText, stringLiteral } from "../protocol/escape.js";
import { checkName, paramsCheckName, typeName } from "../protocol/naming.js";
import { emitTypes } from "./types.js";
import { emitValidators } from "./validators.js";
import { emitZod } from "./zod.js";

/** The folder of `generated/` an Apps protocol version is written to. */
export const appsFolder = (model: Pick<AppsModel, "protocolVersion">): string =>
  `ext-apps-${model.protocolVersion}`;

export async function emitApps(model: AppsModel): Promise<Record<string, string>> {
  const apps = model.methods.filter((m) => m.source === "apps");
  const raw: Record<string, string> = {
    ...(await emitTypes(model)),
    ...emitZod({ definitions: model.definitions, schemaFixes: [] }),
    ...emitValidators({ definitions: model.definitions, methods: apps }),
    "methods.ts": methodsFile(model),
    "index.ts": indexFile(),
  };
  const note = [
    ...(model.hoisted.length === 0
      ? []
      : [
          `// Each definition read as its own document: ${commentText(model.hoisted.join(", "))} are definitions' own $defs.`,
        ]),
    ...model.fixes.map(
      (f) => `// Corrected from schema.json (${commentText(f.key)}): ${commentText(f.why)}.`,
    ),
  ]
    .map((line) => `${line}\n`)
    .join("");
  const files: Record<string, string> = {};
  for (const name of Object.keys(raw).sort()) files[name] = `${extensionHeader(model)}${note}\n${raw[name]}`;
  return files;
}

function methodsFile(model: AppsModel): string {
  const core = `../${model.coreVersion}`;
  const check = (source: "apps" | "core", fn: string) => `${source === "apps" ? "V" : "C"}.${fn}`;
  const type = (source: "apps" | "core", name: string) =>
    `${source === "apps" ? "T" : "CT"}.${typeName(name)}`;
  const rows = model.methods.map((m) => {
    const params = check(m.source, paramsCheckName(m.definition));
    const result = m.result === null ? "null" : check(m.resultSource, checkName(m.result));
    return `  ${stringLiteral(m.method)}: { method: ${stringLiteral(m.method)}, kind: ${stringLiteral(m.kind)}, direction: ${stringLiteral(m.direction)}, params: ${params}, result: ${result} },`;
  });
  const withParams = new Set(
    model.definitions.filter((d) => d.schema.properties?.params !== undefined).map((d) => d.name),
  );
  const types = model.methods.map((m) => {
    // The core messages a view sends all carry params.
    const params =
      m.source === "core" || withParams.has(m.definition)
        ? `${type(m.source, m.definition)}["params"]`
        : "undefined";
    const result = m.result === null ? "never" : type(m.resultSource, m.result);
    return `  ${stringLiteral(m.method)}: { params: ${params}; result: ${result} };`;
  });
  const coreParams = model.methods.some((m) => m.source === "core");
  return formatTs(
    [
      'import type { Check } from "@mcp-codegen/runtime/codegen";',
      coreParams ? `import type * as CT from ${stringLiteral(`${core}/types.js`)};` : "",
      coreParams ? `import * as C from ${stringLiteral(`${core}/validators.js`)};` : "",
      'import type * as T from "./types.js";',
      'import * as V from "./validators.js";',
      "",
      "/** The extension's identifier, the key of `capabilities.extensions`. */",
      `export const EXTENSION_ID = ${stringLiteral(model.id)} as const;`,
      "",
      "/** The Apps protocol version a view sends in `ui/initialize`. */",
      `export const PROTOCOL_VERSION = ${stringLiteral(model.protocolVersion)} as const;`,
      "",
      "/** Who sends a message: the view, the host, or a web host's sandbox proxy. */",
      'export type Direction = "view-to-host" | "host-to-view" | "proxy-to-host" | "host-to-proxy";',
      "",
      "export interface MethodEntry {",
      "  readonly method: string;",
      '  readonly kind: "request" | "notification";',
      "  readonly direction: Direction;",
      "  /** Checks the message's `params`. */",
      "  readonly params: Check;",
      "  /** Checks a request's result; null for a notification. */",
      "  readonly result: Check | null;",
      "}",
      "",
      `/** Every \`ui/*\` message, and the core messages (checked as MCP ${model.coreVersion}) a view may send its host. */`,
      "export const methods = {",
      ...rows,
      "} as const satisfies Record<string, MethodEntry>;",
      "",
      "/** Each method's params and result types. */",
      "export interface MethodTypes {",
      ...types,
      "}",
      "",
    ]
      .filter((line, i, all) => line !== "" || all[i - 1] !== "")
      .join("\n"),
    "methods.ts",
  );
}

function indexFile(): string {
  return [
    'export type * from "./types.js";',
    'export * from "./schemas.js";',
    'export * from "./validators.js";',
    'export * from "./methods.js";',
    "",
  ].join("\n");
}

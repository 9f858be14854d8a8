/**
 * Reads a contract: one JSON or YAML file, or a folder of them, declaring
 *
 *   tools:             { <name>: { title?, description?, inputSchema, outputSchema?, annotations?, icons?, execution?: { taskSupport? }, ui?, _meta?, test? } }
 *   prompts:           { <name>: { title?, description?, arguments?: [{ name, description?, required?, enum?, examples?, default? }], icons?, _meta?, test? } }
 *   resources:         { <name>: { uri, title?, description?, mimeType?, size?, annotations?, icons?, _meta?, test? } }
 *   resourceTemplates: { <name>: { uriTemplate, title?, description?, mimeType?, variables?: { <var>: schema }, annotations?, icons?, _meta?, test? } }
 *   $defs:             { <Name>: schema }   shared definitions, `$ref: "#/$defs/Name"`
 *   auth:              { scopes?: [scope] }   the server is protected; every request needs these scopes
 *   skills:            <folder> | { dir: <folder>, directoryRead?: boolean }   a folder of skills (SEP-2640),
 *                      relative to the file declaring it, read at generate time by skills.ts
 *
 * A tool's `ui:` links it to an HTML view served as a `ui://` resource (MCP Apps; ui.ts).
 *
 * Each item may also declare `scopes: [scope]`: needed, beyond `auth.scopes`, to call, get or read it
 * (scopes.ts). Scopes stay off the wire; the generated tables carry them.
 *
 * `test: { timeoutMs?, runs? }` and a prompt argument's `examples`/`default` are for `mcp-codegen test`
 * alone (item-test.ts): they stay off the wire and out of generated code.
 *
 * Items keep the order they are declared in (a folder's files taken by name), which is the order the
 * lists (`tools/list`, …) and the generated handler interfaces show them in.
 *
 * `$ref` may also name other files (`./shapes.yaml#/$defs/Point`); they are bundled by
 * @apidevtools/json-schema-ref-parser. Schemas are JSON Schema 2020-12 and go through the same strict
 * parser as the protocol schema, so a keyword the emitters cannot honour is refused with the file and
 * the place, never ignored.
 */

import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { parse as parseUriTemplate } from "uri-template";
import { depthReason, shortPointer, tooDeep } from "../protocol/depth.js";
import {
  escapePointer,
  isObject,
  type Json,
  parseSchemaDocument,
  SchemaLoadError,
} from "../protocol/load.js";
import { collectRefs, type DefinitionModel } from "../protocol/model.js";
import { pascalCase, typeIdentifier } from "../util/mangle.js";
import { own, record, recordOf, setOwn } from "../util/records.js";
import { hoistSchema } from "./hoist.js";
import { promptExamples, templateExamples, testHints, toolExamples } from "./item-test.js";
import { typeNameOf, typeNamesOf } from "./names.js";
import { authSection, scopeList } from "./scopes.js";
import { skillsTable } from "./skills.js";
import { isExecution, TASK_SUPPORT } from "./task-support.js";
import { buildUis, linkedMeta, readUiHtml, type UiHtml, UiProblem, uiHtmlPath } from "./ui.js";

export { typeNameOf, typeNamesOf };

import type { SkillsTable } from "@mcp-codegen/runtime/server";
import type {
  ContractModel,
  ContractPrompt,
  ContractResource,
  ContractTemplate,
  ContractTemplateVariable,
  ContractTool,
  JsonObject,
  TemplatePartModel,
} from "./model.js";

/** A contract the user can fix: the file, where in it, and why. Exit 2 in the CLI. */
export class ContractError extends Error {
  override name = "ContractError";
  constructor(
    readonly file: string,
    readonly where: string,
    reason: string,
  ) {
    super(where ? `${file}: ${where}: ${reason}` : `${file}: ${reason}`);
  }
}

const CONTRACT_FILE = /\.(json|ya?ml)$/i;
const TOP_LEVEL = new Set([
  "tools",
  "prompts",
  "resources",
  "resourceTemplates",
  "$defs",
  "auth",
  "skills",
  "$schema",
  "$comment",
  "description",
]);
const TOOL_KEYS = new Set([
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
  "icons",
  "execution",
  "_meta",
  "test",
  "scopes",
  "ui",
]);
const PROMPT_KEYS = new Set(["title", "description", "arguments", "icons", "_meta", "test", "scopes"]);
const ARGUMENT_KEYS = new Set(["name", "title", "description", "required", "enum", "examples", "default"]);
const RESOURCE_KEYS = new Set([
  "uri",
  "title",
  "description",
  "mimeType",
  "size",
  "annotations",
  "icons",
  "_meta",
  "test",
  "scopes",
]);
const TEMPLATE_KEYS = new Set([
  "uriTemplate",
  "title",
  "description",
  "mimeType",
  "variables",
  "annotations",
  "icons",
  "_meta",
  "test",
  "scopes",
]);
/** The tool name rule of the specification (2025-11-25, "Tool names"). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const DEF_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const NOT_AN_OBJECT =
  "must hold an object (tools, prompts, resources, resourceTemplates, $defs, auth, skills)";
const EMPTY = "is empty: declare at least one of tools, prompts, resources, resourceTemplates or skills";

/** Whether a file holds nothing but blank lines, YAML comments and document markers. */
async function isBlank(file: string): Promise<boolean> {
  // Unreadable now: not known to be empty.
  const text = await readFile(file, "utf8").catch(() => "?");
  return text.split(/\r?\n/).every((line) => /^\s*(#.*)?$|^(---|\.\.\.)\s*$/.test(line));
}

/** The files of a contract: the file itself, or a folder's `.json`/`.yaml`/`.yml` files, sorted. */
async function contractFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ContractError(path, "", "not found");
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path)).filter((n) => CONTRACT_FILE.test(n)).sort();
  if (names.length === 0) throw new ContractError(path, "", "the folder holds no .json, .yaml or .yml file");
  return names.map((n) => join(path, n));
}

/**
 * One file's declarations with every `$ref` made local (`#/...`): a reference into another file's
 * `$defs` brings that definition into this document's `$defs` under its own name (so `./shapes.yaml#/$defs/Point`
 * becomes `#/$defs/Point`); a reference to a whole file or another place in it is named after it.
 * The files are read and parsed (JSON or YAML) by @apidevtools/json-schema-ref-parser.
 */
async function bundle(file: string, label: string, read?: Set<string>): Promise<Record<string, unknown>> {
  const parser = new $RefParser();
  const unreadable = async (e: Error): Promise<never> => {
    // The library recurses over what it reads: a document nested deeply enough exhausts the stack.
    if (e instanceof RangeError) throw new ContractError(label, "", depthReason());
    // What it says of a document that is no object or array (an empty file, `null`, a number).
    if (/is not a valid JSON Schema$/.test(e.message.split("\n")[0]!))
      throw new ContractError(label, "", (await isBlank(file)) ? EMPTY : NOT_AN_OBJECT);
    throw new ContractError(label, "", e.message.split("\n")[0]!);
  };
  // Parsed alone first: resolving walks the document recursively, so its depth is checked before that.
  const deep = tooDeep(await parser.parse(file, { resolve: { http: false } }).catch(unreadable));
  if (deep !== undefined) throw new ContractError(label, shortPointer(deep), depthReason());
  const refs = await parser.resolve(file, { resolve: { http: false } }).catch(unreadable);
  for (const path of refs.paths("file")) read?.add(path);
  const doc = structuredClone(parser.schema) as unknown;
  if (!isObject(doc)) throw new ContractError(label, "", NOT_AN_OBJECT);
  const rootUrl = pathToFileURL(resolvePath(file)).href;
  const defs = isObject(doc.$defs) ? recordOf(Object.entries(doc.$defs)) : record<unknown>();
  /** External target (absolute URL) → local definition name. */
  const hoisted = new Map<string, string>();
  const localize = (node: unknown, base: string): unknown => {
    if (Array.isArray(node)) return node.map((x) => localize(x, base));
    if (!isObject(node)) return node;
    const out = record<unknown>();
    for (const [k, v] of Object.entries(node)) {
      if (k !== "$ref" || typeof v !== "string") {
        setOwn(out, k, localize(v, base));
        continue;
      }
      const target = new URL(v, base);
      const fileUrl = target.href.replace(/#.*$/, "");
      if (fileUrl === rootUrl) {
        setOwn(out, k, target.hash === "" ? "#" : decodeURIComponent(target.hash));
        continue;
      }
      let name = hoisted.get(target.href);
      if (!name) {
        const pointer = decodeURIComponent(target.hash.replace(/^#/, ""));
        const segments = pointer.split("/").filter(Boolean);
        name =
          segments.length > 0
            ? segments.at(-1)!.replaceAll("~1", "/").replaceAll("~0", "~")
            : typeNameOf(basename(fileURLToPath(fileUrl)).replace(/\.(json|ya?ml)$/i, ""));
        let value: unknown;
        try {
          value = refs.get(fileURLToPath(fileUrl) + (pointer ? `#${pointer}` : ""));
        } catch (e) {
          throw new ContractError(label, `$ref ${v}`, (e as Error).message.split("\n")[0]!);
        }
        if (value === undefined) throw new ContractError(label, `$ref ${v}`, "points at nothing");
        hoisted.set(target.href, name);
        const local = localize(structuredClone(value), fileUrl);
        if (own(defs, name) !== undefined && JSON.stringify(defs[name]) !== JSON.stringify(local))
          throw new ContractError(
            label,
            `$ref ${v}`,
            `brings a definition ${name} that differs from $defs.${name}; rename one`,
          );
        defs[name] = local;
      }
      setOwn(out, k, `#/$defs/${name}`);
    }
    return out;
  };
  const local = localize(doc, rootUrl) as Record<string, unknown>;
  if (hoisted.size > 0 || local.$defs !== undefined)
    local.$defs = { ...((local.$defs as object) ?? {}), ...defs };
  return local;
}

/**
 * Loads the contract at `path` (a file or a folder); `label` is how messages and headers name it. `read`
 * receives the path of every file read (those reached by `$ref`, the views a `ui:` names, and skill
 * files) and every skills folder listed. `root` is the project, which every file a `ui:` names must be
 * inside (default: the contract's folder).
 */
export async function loadContract(
  path: string,
  label = path,
  read?: Set<string>,
  root?: string,
): Promise<ContractModel> {
  const files = await contractFiles(path);
  const project = root ?? (files.length === 1 && files[0] === path ? dirname(path) : path);
  const tools: Declared["tools"] = record();
  const prompts: Declared["prompts"] = record();
  const resources: Declared["resources"] = record();
  const templates: Declared["templates"] = record();
  const defs: Declared["defs"] = record();
  let auth: Declared["auth"];
  let skills: Declared["skills"];
  for (const file of files) {
    const where = files.length === 1 ? label : join(label, relative(path, file));
    const doc = await bundle(file, where, read);
    for (const key of Object.keys(doc)) {
      if (!TOP_LEVEL.has(key))
        throw new ContractError(
          where,
          key,
          `unknown section (expected ${[...TOP_LEVEL].filter((k) => !k.startsWith("$") && k !== "description").join(", ")}, $defs)`,
        );
    }
    if (doc.auth !== undefined) {
      if (auth) throw new ContractError(where, "auth", `declared twice (also in ${auth.file})`);
      const section = authSection(doc.auth);
      if (!("scopes" in section)) throw new ContractError(where, section.where, section.reason);
      auth = { scopes: section.scopes, file: where };
    }
    if (doc.skills !== undefined) {
      if (skills) throw new ContractError(where, "skills", `declared twice (also in ${skills.file})`);
      skills = { table: await skillsSection(doc.skills, file, where, read), file: where };
    }
    const pointers = new Refs(doc, where);
    const section = (key: string, into: Record<string, DeclaredItem>) => {
      const value = doc[key];
      if (value === undefined) return;
      if (!isObject(value)) throw new ContractError(where, key, "must be an object of name → declaration");
      const typeNames = typeNamesOf(Object.keys(value));
      for (const [name, raw] of Object.entries(value)) {
        if (!isObject(raw)) throw new ContractError(where, `${key}.${name}`, "must be an object");
        if (into[name])
          throw new ContractError(where, `${key}.${name}`, `declared twice (also in ${into[name]!.file})`);
        const item =
          key === "tools" ? selfContained(raw, name, typeNames.get(name)!, where, doc) : { raw, wire: {} };
        into[name] = {
          raw: pointers.rewrite(item.raw, `/${key}/${escapePointer(name)}`) as Record<string, unknown>,
          file: where,
          wire: item.wire,
        };
      }
    };
    section("tools", tools);
    for (const [name, item] of Object.entries(tools)) {
      const html = item.file === where && item.html === undefined ? uiHtmlPath(item.raw.ui) : undefined;
      if (html === undefined) continue;
      const at = `tools.${name}.ui${typeof item.raw.ui === "string" ? "" : ".html"}`;
      try {
        item.html = await readUiHtml(html, file, project, at, read);
      } catch (e) {
        if (e instanceof UiProblem) throw new ContractError(where, e.where, e.message);
        throw e;
      }
    }
    section("prompts", prompts);
    section("resources", resources);
    section("resourceTemplates", templates);
    if (doc.$defs !== undefined && !isObject(doc.$defs))
      throw new ContractError(where, "$defs", "must be an object of schemas");
    for (const [name, raw] of [
      ...Object.entries((doc.$defs as Record<string, unknown>) ?? {}),
      ...pointers.extra(),
    ]) {
      if (!DEF_NAME.test(name))
        throw new ContractError(
          where,
          `$defs.${name}`,
          "a definition name must be an identifier (letters, digits, _)",
        );
      const rewritten = pointers.rewrite(raw, `/$defs/${escapePointer(name)}`);
      if (defs[name] && JSON.stringify(defs[name]!.raw) !== JSON.stringify(rewritten))
        throw new ContractError(where, `$defs.${name}`, `defined differently in ${defs[name]!.file}`);
      defs[name] = { raw: rewritten, file: where };
    }
  }
  return buildContract(label, {
    tools,
    prompts,
    resources,
    templates,
    defs,
    ...(auth ? { auth } : {}),
    ...(skills ? { skills } : {}),
  });
}

/** `skills: <folder>` or `{ dir, directoryRead? }`, the folder relative to the file declaring it, read. */
async function skillsSection(
  value: unknown,
  file: string,
  where: string,
  read: Set<string> | undefined,
): Promise<SkillsTable> {
  const shape = "must be a folder (skills: ./skills) or { dir: ./skills, directoryRead?: true | false }";
  const section = typeof value === "string" ? { dir: value } : value;
  if (!isObject(section)) throw new ContractError(where, "skills", shape);
  for (const key of Object.keys(section))
    if (key !== "dir" && key !== "directoryRead")
      throw new ContractError(where, `skills.${key}`, "unknown field (allowed: dir, directoryRead)");
  if (typeof section.dir !== "string" || section.dir === "")
    throw new ContractError(where, "skills.dir", shape);
  if (section.directoryRead !== undefined && typeof section.directoryRead !== "boolean")
    throw new ContractError(where, "skills.directoryRead", "must be true or false");
  return skillsTable(resolvePath(dirname(file), section.dir), {
    label: join(dirname(where), section.dir),
    ...(section.directoryRead === undefined ? {} : { directoryRead: section.directoryRead }),
    ...(read ? { read } : {}),
  });
}

/**
 * A contract not yet on disk (what `init` is about to write), named `label`; `beside` holds the files it
 * may name (a view's HTML), by path relative to it.
 */
export async function loadContractText(
  text: string,
  label: string,
  beside: Record<string, string> = {},
): Promise<ContractModel> {
  const dir = await mkdtemp(join(tmpdir(), "mcp-contract-"));
  try {
    for (const [path, content] of Object.entries(beside)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), content);
    }
    const file = join(dir, basename(label));
    await writeFile(file, text);
    return await loadContract(file, label);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A tool schema that carries its own `$defs` (as `z.toJSONSchema` writes one, and as schemas travel on
 * the wire) or points at itself with `$ref: "#"` reads its `#/...` references inside itself, not in the
 * contract file: its definitions join the file's `$defs` as `<Tool>Input<Name>` (hoistSchema, as `pull`
 * does) and the references are rewritten to them. Such a schema goes on the wire as written (`wire`):
 * its `$schema`, `$defs` names and `$anchor`s reach clients keyword for keyword.
 */
function selfContained(
  raw: Record<string, unknown>,
  name: string,
  typeName: string,
  file: string,
  doc: Record<string, unknown>,
): Pick<DeclaredItem, "raw" | "wire"> {
  const out = { ...raw };
  const wire: NonNullable<DeclaredItem["wire"]> = {};
  for (const [key, suffix] of [
    ["inputSchema", "Input"],
    ["outputSchema", "Output"],
  ] as const) {
    const schema = raw[key];
    if (
      !isObject(schema) ||
      !(schema.$defs !== undefined || schema.definitions !== undefined || pointsAtItself(schema))
    )
      continue;
    let hoisted: ReturnType<typeof hoistSchema>;
    try {
      hoisted = hoistSchema(schema, `${typeName}${suffix}`);
    } catch (e) {
      throw new ContractError(file, `tools.${name}.${key}`, (e as Error).message);
    }
    out[key] = hoisted.root;
    wire[key] = schema;
    const defs = isObject(doc.$defs) ? doc.$defs : record();
    for (const [def, value] of Object.entries(hoisted.defs)) {
      if (own(defs, def) !== undefined)
        throw new ContractError(
          file,
          `tools.${name}.${key}`,
          `its definition ${def} is already in $defs; rename one`,
        );
      defs[def] = value;
    }
    doc.$defs = defs;
  }
  return { raw: out, wire };
}

function pointsAtItself(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(pointsAtItself);
  if (!isObject(node)) return false;
  return Object.entries(node).some(([k, v]) => (k === "$ref" ? v === "#" : pointsAtItself(v)));
}

/**
 * `$ref`s after bundling point anywhere in the document; the emitters take `#/$defs/<Name>` only. A
 * reference to another place gets a definition of its own, named by where it points.
 */
class Refs {
  readonly #named = new Map<string, string>();
  readonly #taken = new Set<string>();
  readonly #extra: [string, unknown][] = [];
  constructor(
    readonly doc: Record<string, unknown>,
    readonly file: string,
  ) {}

  rewrite(node: unknown, pointer: string): unknown {
    if (Array.isArray(node)) return node.map((x, i) => this.rewrite(x, `${pointer}/${i}`));
    if (!isObject(node)) return node;
    const out = record<unknown>();
    for (const [k, v] of Object.entries(node)) {
      if (k === "$ref" && typeof v === "string") out[k] = this.#target(v, pointer);
      else setOwn(out, k, this.rewrite(v, `${pointer}/${escapePointer(k)}`));
    }
    return out;
  }

  extra(): [string, unknown][] {
    return this.#extra;
  }

  #target(ref: string, at: string): string {
    if (!ref.startsWith("#/"))
      throw new ContractError(
        this.file,
        at.slice(1).replaceAll("/", "."),
        `cannot resolve $ref ${JSON.stringify(ref)}`,
      );
    const path = ref
      .slice(2)
      .split("/")
      .map((t) => decodeURIComponent(t).replaceAll("~1", "/").replaceAll("~0", "~"));
    if (path.length === 2 && path[0] === "$defs") return ref;
    let named = this.#named.get(ref);
    if (!named) {
      let target: unknown = this.doc;
      for (const step of path)
        target = isObject(target) || Array.isArray(target) ? own(target, step) : undefined;
      if (target === undefined)
        throw new ContractError(
          this.file,
          at.slice(1).replaceAll("/", "."),
          `dangling $ref ${JSON.stringify(ref)}`,
        );
      // In type-name form already, so that the type and the check both carry this very name; two places
      // whose forms meet are told apart by mangle.ts's suffix.
      const form = `Ref${pascalCase(path.join(" "))}`;
      named = this.#taken.has(form) ? `Ref${typeIdentifier(path.join(" "))}` : form;
      this.#taken.add(named);
      this.#named.set(ref, named);
      this.#extra.push([named, target]);
    }
    return `#/$defs/${named}`;
  }
}

/** One declaration as written in `file`; `wire`: a tool's self-contained schemas, sent as written. */
interface DeclaredItem {
  raw: Record<string, unknown>;
  file: string;
  /** The view a tool's `ui:` names, as read. */
  html?: UiHtml;
  wire?: { inputSchema?: Record<string, unknown>; outputSchema?: Record<string, unknown> };
}

interface Declared {
  tools: Record<string, DeclaredItem>;
  prompts: Record<string, DeclaredItem>;
  resources: Record<string, DeclaredItem>;
  templates: Record<string, DeclaredItem>;
  defs: Record<string, { raw: unknown; file: string }>;
  /** `auth:` as declared, in the one file that may declare it. */
  auth?: { scopes: string[]; file: string };
  /** `skills:`, read, in the one file that may declare it. */
  skills?: { table: SkillsTable; file: string };
}

const sorted = <T>(record: Record<string, T>): [string, T][] =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** Drops a schema's own `$schema` (zod's `toJSONSchema` writes one at each root): the dialect is 2020-12. */
function rootSchema(raw: unknown): unknown {
  if (!isObject(raw)) return raw;
  const { $schema: _, ...rest } = raw;
  return rest;
}

/** Builds the model from declarations whose `$ref`s all read `#/$defs/<Name>`. */
export function buildContract(source: string, declared: Declared): ContractModel {
  const schemaDefs = record<unknown>();
  /** Synthetic definition → where the user wrote it, for messages. */
  const origin = new Map<string, { file: string; where: string }>();
  /** Each kind's names in type names, told apart when they share a form (`get_user`, `get-user`). */
  const typeNames = {
    tools: typeNamesOf(Object.keys(declared.tools)),
    prompts: typeNamesOf(Object.keys(declared.prompts)),
    resourceTemplates: typeNamesOf(Object.keys(declared.templates)),
  };
  const claim = (def: string, file: string, where: string) => {
    if (origin.has(def) || declared.defs[def])
      throw new ContractError(
        file,
        where,
        `its type name ${def} is already taken by ${origin.get(def)?.where ?? `$defs.${def}`}; rename one`,
      );
    origin.set(def, { file, where });
  };
  const unique = (kind: keyof typeof typeNames, name: string) => typeNames[kind].get(name)!;
  const keysOf = (raw: Record<string, unknown>, allowed: Set<string>, file: string, where: string) => {
    for (const k of Object.keys(raw))
      if (!allowed.has(k))
        throw new ContractError(file, `${where}.${k}`, `unknown field (allowed: ${[...allowed].join(", ")})`);
  };
  /** An item's `scopes`, checked: `{ scopes }` to spread into its model (nothing for none). */
  const scopesOf = (raw: Record<string, unknown>, file: string, where: string): { scopes?: string[] } => {
    if (raw.scopes === undefined) return {};
    const list = scopeList(raw.scopes, `${where}.scopes`);
    if (!Array.isArray(list)) throw new ContractError(file, list.where, list.reason);
    return list.length > 0 ? { scopes: list } : {};
  };

  for (const [name, { raw }] of sorted(declared.defs)) {
    schemaDefs[name] = rootSchema(raw);
    origin.set(name, { file: declared.defs[name]!.file, where: `$defs.${name}` });
  }

  const tools: Omit<ContractTool, "definition">[] = [];
  const toolRaw = new Map<string, Record<string, unknown>>();
  for (const [name, { raw, file }] of Object.entries(declared.tools)) {
    const where = `tools.${name}`;
    if (!TOOL_NAME.test(name))
      throw new ContractError(
        file,
        where,
        "a tool name is 1 to 128 of A-Z a-z 0-9 _ - . (the specification's rule)",
      );
    keysOf(raw, TOOL_KEYS, file, where);
    checkExecution(raw.execution, file, `${where}.execution`);
    const typeName = unique("tools", name);
    const objectSchema = (key: "inputSchema" | "outputSchema") => {
      const schema = rootSchema(raw[key]);
      if (!isObject(schema) || schema.type !== "object")
        throw new ContractError(file, `${where}.${key}`, 'must be a JSON Schema with `type: "object"`');
      return schema;
    };
    if (raw.inputSchema === undefined) throw new ContractError(file, where, "needs an inputSchema");
    const input = `${typeName}Input`;
    claim(input, file, `${where}.inputSchema`);
    schemaDefs[input] = objectSchema("inputSchema");
    let output: string | null = null;
    if (raw.outputSchema !== undefined) {
      output = `${typeName}Output`;
      claim(output, file, `${where}.outputSchema`);
      schemaDefs[output] = objectSchema("outputSchema");
    }
    const test = { ...testHints(raw, file, where), ...toolExamples(schemaDefs[input], file, where) };
    tools.push({
      name,
      typeName,
      input,
      output,
      ...scopesOf(raw, file, where),
      ...(Object.keys(test).length ? { test } : {}),
    });
    toolRaw.set(name, raw);
  }

  const prompts: ContractPrompt[] = [];
  for (const [name, { raw, file }] of Object.entries(declared.prompts)) {
    const where = `prompts.${name}`;
    keysOf(raw, PROMPT_KEYS, file, where);
    const typeName = unique("prompts", name);
    const args = raw.arguments ?? [];
    if (!Array.isArray(args))
      throw new ContractError(
        file,
        `${where}.arguments`,
        "must be an array of { name, description?, required? }",
      );
    const properties = record<unknown>();
    const required: string[] = [];
    const list: ContractPrompt["arguments"] = [];
    const wire: JsonObject[] = [];
    args.forEach((a, i) => {
      const at = `${where}.arguments[${i}]`;
      if (!isObject(a) || typeof a.name !== "string" || a.name === "")
        throw new ContractError(file, at, "must be an object with a name");
      keysOf(a, ARGUMENT_KEYS, file, at);
      if (properties[a.name]) throw new ContractError(file, at, `argument ${a.name} is declared twice`);
      if (a.required !== undefined && typeof a.required !== "boolean")
        throw new ContractError(file, `${at}.required`, "must be true or false");
      if (
        a.enum !== undefined &&
        (!Array.isArray(a.enum) || a.enum.length === 0 || !a.enum.every((x) => typeof x === "string"))
      )
        throw new ContractError(
          file,
          `${at}.enum`,
          "must be a non-empty array of strings (prompt arguments are strings)",
        );
      properties[a.name] = {
        type: "string",
        ...(typeof a.description === "string" ? { description: a.description } : {}),
        ...(a.enum ? { enum: a.enum } : {}),
      };
      if (a.required === true) required.push(a.name);
      list.push({
        name: a.name,
        required: a.required === true,
        ...(a.enum ? { enum: a.enum as string[] } : {}),
      });
      // What the contract tells the test command alone stays off the wire.
      const { enum: _, examples: _e, default: _d, ...rest } = a;
      wire.push(rest as JsonObject);
    });
    const def = `${typeName}PromptArguments`;
    claim(def, file, `${where}.arguments`);
    schemaDefs[def] = {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    };
    const { arguments: _, test: _t, scopes: _s, ...rest } = raw;
    const test = {
      ...testHints(raw, file, where),
      ...promptExamples(args as Record<string, unknown>[], file, where),
    };
    prompts.push({
      name,
      typeName,
      ...scopesOf(raw, file, where),
      definition: { name, ...(rest as JsonObject), ...(wire.length ? { arguments: wire } : {}) },
      arguments: list,
      args: def,
      ...(Object.keys(test).length ? { test } : {}),
    });
  }

  const resources: ContractResource[] = [];
  const uris = new Map<string, string>();
  for (const [name, { raw, file }] of Object.entries(declared.resources)) {
    const where = `resources.${name}`;
    keysOf(raw, RESOURCE_KEYS, file, where);
    if (typeof raw.uri !== "string" || !/^[a-z][a-z0-9+.-]*:/i.test(raw.uri))
      throw new ContractError(file, `${where}.uri`, "must be a URI (scheme:…)");
    if (uris.has(raw.uri))
      throw new ContractError(file, `${where}.uri`, `the same URI as resources.${uris.get(raw.uri)}`);
    uris.set(raw.uri, name);
    const { test: _t, scopes: _s, ...rest } = raw;
    const test = testHints(raw, file, where);
    resources.push({
      name,
      ...scopesOf(raw, file, where),
      definition: { name, ...(rest as JsonObject) },
      ...(Object.keys(test).length ? { test } : {}),
    });
  }

  const toolFile = (name: string) => declared.tools[name]!.file;
  let built: ReturnType<typeof buildUis>;
  try {
    built = buildUis(
      Object.entries(declared.tools).map(([name, { raw, html }]) => ({
        name,
        ui: raw.ui,
        where: `tools.${name}`,
        ...(html ? { html } : {}),
      })),
      new Map([...uris].map(([uri, name]) => [uri, `resources.${name}`])),
    );
  } catch (e) {
    if (!(e instanceof UiProblem)) throw e;
    throw new ContractError(toolFile(e.where.split(".")[1]!), e.where, e.message);
  }
  const uis = built.uis;

  const resourceTemplates: ContractTemplate[] = [];
  for (const [name, { raw, file }] of Object.entries(declared.templates)) {
    const where = `resourceTemplates.${name}`;
    keysOf(raw, TEMPLATE_KEYS, file, where);
    const typeName = unique("resourceTemplates", name);
    if (typeof raw.uriTemplate !== "string")
      throw new ContractError(file, `${where}.uriTemplate`, "must be an RFC 6570 URI template");
    const parts = templateParts(raw.uriTemplate, file, `${where}.uriTemplate`);
    const names = parts.flatMap((p) => (typeof p === "string" ? [] : p.vars.map((v) => v.name)));
    const requiredVars = parts.flatMap((p) =>
      typeof p !== "string" && (p.op === "" || p.op === "+") ? p.vars.map((v) => v.name) : [],
    );
    const declaredVars = raw.variables ?? {};
    if (!isObject(declaredVars))
      throw new ContractError(file, `${where}.variables`, "must be an object of variable → schema");
    for (const v of Object.keys(declaredVars))
      if (!names.includes(v))
        throw new ContractError(
          file,
          `${where}.variables.${v}`,
          `the template ${raw.uriTemplate} has no variable ${v}`,
        );
    const properties = record<unknown>();
    const variables: ContractTemplateVariable[] = [];
    for (const v of [...new Set(names)]) {
      const schema = rootSchema(own(declaredVars, v) ?? { type: "string" });
      if (!isObject(schema)) throw new ContractError(file, `${where}.variables.${v}`, "must be a schema");
      const type = schema.type ?? (Array.isArray(schema.enum) ? "string" : undefined);
      if (typeof type !== "string" || !["string", "number", "integer", "boolean", "array"].includes(type))
        throw new ContractError(
          file,
          `${where}.variables.${v}`,
          "type must be string, number, integer, boolean or array (of strings)",
        );
      properties[v] = schema;
      const choices = Array.isArray(schema.enum) ? (schema.enum as (string | number | boolean)[]) : undefined;
      variables.push({
        name: v,
        type: type as ContractTemplateVariable["type"],
        ...(choices ? { enum: choices } : {}),
      });
    }
    const def = `${typeName}TemplateVariables`;
    claim(def, file, `${where}.variables`);
    schemaDefs[def] = {
      type: "object",
      properties,
      required: [...new Set(requiredVars)].sort(),
      additionalProperties: false,
    };
    const { variables: _, test: _t, scopes: _s, ...rest } = raw;
    const test = {
      ...testHints(raw, file, where),
      ...templateExamples(Object.entries(properties), file, where),
    };
    resourceTemplates.push({
      name,
      typeName,
      ...scopesOf(raw, file, where),
      definition: { name, ...(rest as JsonObject) },
      parts,
      variables,
      vars: def,
      ...(Object.keys(test).length ? { test } : {}),
    });
  }

  const label = source;
  let parsed: ReturnType<typeof parseSchemaDocument>;
  try {
    parsed = parseSchemaDocument({ $defs: schemaDefs }, label, "2020-12");
  } catch (e) {
    if (!(e instanceof SchemaLoadError)) throw e;
    // `/$defs/AddInput/properties/a` → where the user wrote it: `tools.add.inputSchema/properties/a`.
    const m = /^\/\$defs\/([^/]+)(.*)$/.exec(e.pointer);
    const at = m ? origin.get(m[1]!.replaceAll("~1", "/").replaceAll("~0", "~")) : undefined;
    throw new ContractError(at?.file ?? label, at ? `${at.where}${m![2]}` : e.pointer, e.reason);
  }
  const definitions: DefinitionModel[] = Object.keys(parsed.definitions)
    .sort()
    .map((name) => {
      const schema = parsed.definitions[name]!;
      return {
        name,
        ...(schema.description === undefined ? {} : { description: schema.description }),
        schema,
        refs: [...collectRefs(schema)].sort(),
      };
    });
  const refsOf = new Map(definitions.map((d) => [d.name, d.refs]));
  /** A schema as it goes on the wire: the `$defs` it reaches travel inside it. */
  const selfContained = (def: string): JsonObject => {
    const reach = new Set<string>();
    const visit = (n: string) => {
      for (const r of refsOf.get(n) ?? []) {
        if (!reach.has(r) && r !== def) {
          reach.add(r);
          visit(r);
        }
      }
    };
    visit(def);
    // On the wire the schema is the root: a reference to its own definition reads `#`.
    const self = `#/$defs/${escapePointer(def)}`;
    const rooted = (node: Json): Json => {
      if (Array.isArray(node)) return node.map(rooted);
      if (node === null || typeof node !== "object") return node;
      const out = record<Json>();
      for (const [k, v] of Object.entries(node)) out[k] = k === "$ref" && v === self ? "#" : rooted(v);
      return out;
    };
    const schema = rooted(schemaDefs[def] as Json) as JsonObject;
    if (reach.size === 0) return schema;
    const carried = record<Json>();
    for (const r of [...reach].sort()) carried[r] = rooted(schemaDefs[r] as Json);
    return { ...schema, $defs: carried };
  };
  /** The wire schema keeps the `$schema` the user wrote (the parser accepts only 2020-12's). */
  const asWritten = (written: unknown, def: string): JsonObject => {
    const schema = selfContained(def);
    return isObject(written) && typeof written.$schema === "string"
      ? { $schema: written.$schema, ...schema }
      : schema;
  };
  const toolModels: ContractTool[] = tools.map((t) => {
    const raw = toolRaw.get(t.name)!;
    const wire = declared.tools[t.name]!.wire;
    const { inputSchema: _i, outputSchema: _o, test: _t, scopes: _s, ui: _u, ...rest } = raw;
    const link = built.links.get(t.name);
    if (link) {
      try {
        rest._meta = linkedMeta(rest._meta, link, `tools.${t.name}`);
      } catch (e) {
        if (!(e instanceof UiProblem)) throw e;
        throw new ContractError(toolFile(t.name), e.where, e.message);
      }
    }
    return {
      ...t,
      ...(link ? { ui: link } : {}),
      definition: {
        name: t.name,
        ...(rest as JsonObject),
        inputSchema: (wire?.inputSchema as JsonObject | undefined) ?? asWritten(raw.inputSchema, t.input),
        ...(t.output
          ? {
              outputSchema:
                (wire?.outputSchema as JsonObject | undefined) ?? asWritten(raw.outputSchema, t.output!),
            }
          : {}),
      },
    };
  });
  const auth = declared.auth && { scopes: declared.auth.scopes };
  return {
    source,
    sha256: canonicalSha256({
      tools: toolModels.map((t) => t.definition),
      prompts: prompts.map((p) => p.definition),
      resources: resources.map((r) => r.definition),
      resourceTemplates: resourceTemplates.map((t) => t.definition),
      // Off the wire but in the generated tables: hashed only when declared, so other contracts keep theirs.
      auth,
      scopes: scopesDeclared({ tools: toolModels, prompts, resources, resourceTemplates }),
      skills: declared.skills?.table,
      // The views' bytes: an edited view is a changed contract. Hashed only when declared, as above.
      ui: uis.length > 0 ? uis.map((u) => ({ definition: u.definition, content: u.content })) : undefined,
    }),
    tools: toolModels,
    prompts,
    resources,
    resourceTemplates,
    ...(uis.length > 0 ? { ui: uis } : {}),
    ...(auth ? { auth } : {}),
    ...(declared.skills ? { skills: declared.skills.table } : {}),
    definitions,
  };
}

/** `execution: { taskSupport }`: absent, or an object whose `taskSupport` is one the protocol names. */
function checkExecution(execution: unknown, file: string, where: string): void {
  if (execution === undefined || isExecution(execution)) return;
  if (!isObject(execution))
    throw new ContractError(file, where, `must be an object, { taskSupport: ${TASK_SUPPORT.join(" | ")} }`);
  const value = execution.taskSupport;
  throw new ContractError(
    file,
    `${where}.taskSupport`,
    `must be one of ${TASK_SUPPORT.join(", ")} (got ${JSON.stringify(value)})`,
  );
}

/** Each kind's items that declare scopes, by name, or undefined when none does. */
function scopesDeclared(
  kinds: Record<string, readonly { name: string; scopes?: string[] }[]>,
): Record<string, Record<string, string[]>> | undefined {
  const out = record<Record<string, string[]>>();
  for (const [kind, items] of Object.entries(kinds)) {
    const named = items.filter((i) => i.scopes);
    if (named.length > 0) out[kind] = recordOf(named.map((i) => [i.name, i.scopes!]));
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** sha256 of `value`'s canonical JSON: what contracts and locks are identified by. */
export const canonicalSha256 = (value: unknown): string =>
  createHash("sha256").update(canonicalJson(value)).digest("hex");

/** JSON with object keys sorted at every level: the same declarations always hash alike. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** RFC 6570 template text → the runtime's parts, parsed by the uri-template library. */
export function templateParts(template: string, file: string, where: string): TemplatePartModel[] {
  let ast: ReturnType<typeof parseUriTemplate>["ast"];
  try {
    ast = parseUriTemplate(template).ast;
  } catch (e) {
    throw new ContractError(
      file,
      where,
      `not an RFC 6570 URI template: ${(e as Error).message.split("\n")[0]}`,
    );
  }
  return ast.parts.map((part): TemplatePartModel => {
    if (part.type === "literal") return part.value;
    return {
      op: part.operator,
      vars: part.variables.map((v) => ({
        name: v.name,
        ...(v.modifier?.type === "explode" ? { explode: true as const } : {}),
        ...(v.modifier?.type === "substr" ? { prefix: v.modifier.length } : {}),
      })),
    };
  });
}

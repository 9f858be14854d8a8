/**
 * The protocol model: plain JSON-serialisable data derived from the parsed schema, never from hand lists.
 * Messages and their directions come from the schema's own unions (ClientRequest, ServerRequest,
 * ClientNotification, ServerNotification, and from 2026-07-28 InputRequest); what the schema leaves
 * unsaid comes from tables.ts.
 */

import type { CapabilityRef, Direction, SupportedVersion } from "@mcp-codegen/runtime";
import type { Dialect, ParsedSchema, SchemaNode } from "./load.js";
import { camelCase, handlerName } from "./naming.js";
import { CAPABILITY_OF, ERROR_AS_RESULT, ERROR_CODE_OF, RESULT_OF } from "./tables.js";

export type { CapabilityRef, Direction, SupportedVersion };
export type Side = CapabilityRef["side"];

/** A type position: a definition, or a property path inside one (for inline schemas). */
export interface TypeRef {
  definition: string;
  path: string[];
}

export interface MethodModel {
  method: string;
  kind: "request" | "notification";
  direction: Direction;
  /** The definition that declares the message, e.g. CallToolRequest. */
  definition: string;
  handler: string;
  params: TypeRef | null;
  paramsRequired: boolean;
  /** Result definition (requests only). */
  result: string | null;
  capability: CapabilityRef | null;
  /** `input`: from 2026-07-28 a server→client request travels inside an InputRequiredResult. */
  delivery: "message" | "input";
  /** A handler's exception becomes a result with `isError: true` instead of a JSON-RPC error (tools/call). */
  errorAsResult: boolean;
  /** The params accept `inputResponses`: the request may be answered with an InputRequiredResult (2026-07-28 on). */
  inputRequired: boolean;
  /** The result carries caching hints (`ttlMs`, from 2026-07-28's CacheableResult). */
  cacheable: boolean;
  /** The params' own members, sorted (what a caller passes, `_meta` aside), and the required ones. */
  paramKeys: string[];
  requiredParamKeys: string[];
}

export interface DefinitionModel {
  name: string;
  description?: string;
  schema: SchemaNode;
  /** Definitions referenced directly, sorted. */
  refs: string[];
}

export interface ProtocolModel {
  protocolVersion: string;
  schemaSha256: string;
  dialect: Dialect;
  generatorVersion: string;
  /** `initialize` handshake (to 2025-11-25) or stateless `server/discover` (from 2026-07-28). */
  lifecycle: "initialize" | "discover";
  /** Whether this version's schema defines JSON-RPC batches. */
  batches: boolean;
  /** Versions a peer generated from this schema negotiates, newest first; this version first. */
  supportedVersions: SupportedVersion[];
  /** tables.SCHEMA_FIXES entries applied to this version's schema.json. */
  schemaFixes: string[];
  /** Error codes the spec text assigns and the schema does not define (tables.ERROR_CODE_OF). */
  errorCodes: { name: string; code: number; why: string }[];
  definitions: DefinitionModel[];
  methods: MethodModel[];
  /**
   * For a `discover` lifecycle: the model of the newest `initialize`-lifecycle version, which the
   * generated code embeds (under legacy/) to serve and reach peers of the older era.
   */
  legacy?: ProtocolModel;
}

export interface ModelMeta {
  protocolVersion: string;
  schemaSha256: string;
  generatorVersion: string;
  /** Older versions with the same lifecycle this code also speaks (from the registry), newest first. */
  olderVersions?: SupportedVersion[];
  /** The registry's claims about this version, checked against the schema. */
  registry?: { lifecycle: "initialize" | "discover"; batches: boolean };
}

export class ModelError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    reason: string,
  ) {
    super(`${file}#${pointer}: ${reason}`);
    this.name = "ModelError";
  }
}

/** Builds the model; `used` receives the `<TABLE>:<key>` of every table entry consulted. */
export function buildModel(
  parsed: ParsedSchema,
  meta: ModelMeta,
  used: Set<string> = new Set(),
): ProtocolModel {
  for (const key of parsed.fixes) used.add(`SCHEMA_FIXES:${key}`);
  const defs = parsed.definitions;
  const fail = (pointer: string, reason: string): never => {
    throw new ModelError(parsed.file, pointer, reason);
  };
  const def = (name: string): SchemaNode =>
    defs[name] ?? fail(`/${parsed.defsKey}/${name}`, "missing definition");

  const definitions: DefinitionModel[] = Object.keys(defs)
    .sort()
    .map((name) => {
      const schema = def(name);
      return {
        name,
        ...(schema.description === undefined ? {} : { description: schema.description }),
        schema,
        refs: [...collectRefs(schema)].sort(),
      };
    });

  const members = (union: string): string[] => {
    const node = defs[union];
    if (!node) return [];
    if (node.properties?.method) return [union];
    if (node.anyOf?.every((m) => m.ref)) return node.anyOf.map((m) => m.ref!);
    return fail(node.pointer, `${union} is neither a message nor a union of message definitions`);
  };

  const methods: MethodModel[] = [];
  const add = (
    union: string,
    kind: MethodModel["kind"],
    direction: Direction,
    delivery: MethodModel["delivery"],
  ) => {
    for (const name of members(union)) {
      const node = def(name);
      const methodNode = node.properties?.method;
      const method = methodNode?.const;
      if (typeof method !== "string")
        fail(`${node.pointer}/properties/method`, "message without a `method` const");
      const m = method as string;
      const paramsNode = node.properties?.params;
      const result = kind === "request" ? resultOf(name) : null;
      const paramProps = propsOf(paramsNode);
      methods.push({
        method: m,
        kind,
        direction,
        definition: name,
        handler: handlerName(name, used),
        params: paramsNode
          ? { definition: paramsNode.ref ?? name, path: paramsNode.ref ? [] : ["params"] }
          : null,
        paramsRequired: node.required?.includes("params") ?? false,
        result,
        capability: capabilityOf(m, kind, direction),
        delivery,
        errorAsResult: kind === "request" && direction === "client-to-server" && errorAsResult(m, result!),
        inputRequired: "inputResponses" in paramProps,
        cacheable: result !== null && "ttlMs" in propsOf(defs[result]),
        paramKeys: Object.keys(paramProps).sort(),
        requiredParamKeys: [...(derefNode(paramsNode)?.required ?? [])].sort(),
      });
    }
  };

  const resultOf = (request: string): string => {
    const entry = RESULT_OF.find((e) => e.key === request);
    if (entry && defs[entry.value]) {
      used.add(`RESULT_OF:${entry.key}`);
      return entry.value;
    }
    const byName = `${request.replace(/Request$/, "")}Result`;
    if (defs[byName]) return byName;
    return fail(
      def(request).pointer,
      `no result definition for ${request} (neither ${byName} nor a tables.RESULT_OF entry)`,
    );
  };

  const errorAsResult = (method: string, result: string): boolean => {
    const entry = ERROR_AS_RESULT.find((e) => e.key === method);
    if (!entry) return false;
    used.add(`ERROR_AS_RESULT:${entry.key}`);
    const props = propsOf(defs[result]);
    if (!props.isError || !props.content) {
      fail(
        def(result).pointer,
        `${result} has no isError/content, yet tables.ERROR_AS_RESULT names ${method}`,
      );
    }
    return true;
  };

  const derefNode = (node: SchemaNode | undefined): SchemaNode | undefined => {
    let n = node;
    while (n?.ref) n = defs[n.ref];
    return n;
  };
  /** Properties of a node through `$ref`s (a capability's object, a message's params). */
  const propsOf = (node: SchemaNode | undefined): Record<string, SchemaNode> =>
    derefNode(node)?.properties ?? {};
  const capsOf = (side: Side) =>
    propsOf(defs[side === "server" ? "ServerCapabilities" : "ClientCapabilities"]);

  const capabilityOf = (
    method: string,
    kind: MethodModel["kind"],
    direction: Direction,
  ): CapabilityRef | null => {
    // A request is gated by what its receiver offers; a notification by what its sender declared.
    const side: Side = (kind === "request") === (direction === "client-to-server") ? "server" : "client";
    const caps = capsOf(side);
    const exists = (path: string[]) =>
      path.length > 0 && path[0]! in caps && (path.length === 1 || path[1]! in propsOf(caps[path[0]!]));
    const ref = (path: string[]): CapabilityRef => {
      let node: SchemaNode | undefined = caps[path[0]!];
      if (path.length > 1) node = propsOf(node)[path[1]!];
      while (node?.ref) node = defs[node.ref];
      return { side, path, leaf: node?.type?.includes("boolean") ? "flag" : "object" };
    };
    const entry = CAPABILITY_OF.find((e) => e.key === method);
    if (entry) {
      used.add(`CAPABILITY_OF:${entry.key}`);
      return exists(entry.value) ? ref(entry.value) : null;
    }
    const segments = (kind === "notification" ? method.replace(/^notifications\//, "") : method).split("/");
    const head = segments[0]!;
    if (!(head in caps)) return null;
    const flag = camelCase(segments[segments.length - 1]!);
    return ref(segments.length > 1 && exists([head, flag]) ? [head, flag] : [head]);
  };

  add("ClientRequest", "request", "client-to-server", "message");
  add("ClientNotification", "notification", "client-to-server", "message");
  add("ServerNotification", "notification", "server-to-client", "message");
  if (defs.ServerRequest) add("ServerRequest", "request", "server-to-client", "message");
  else add("InputRequest", "request", "server-to-client", "input");

  methods.sort((a, b) => cmp(a.kind, b.kind) || cmp(a.method, b.method) || cmp(a.direction, b.direction));

  const lifecycle = defs.InitializeRequest ? "initialize" : defs.DiscoverRequest ? "discover" : null;
  if (!lifecycle) fail(`/${parsed.defsKey}`, "neither InitializeRequest nor DiscoverRequest is defined");
  const batches = "JSONRPCBatchRequest" in defs;
  if (meta.registry && (meta.registry.lifecycle !== lifecycle || meta.registry.batches !== batches)) {
    fail(
      `/${parsed.defsKey}`,
      `schema/versions.json says ${meta.protocolVersion} has lifecycle ${meta.registry.lifecycle} and batches ${meta.registry.batches}; the schema says ${lifecycle} and ${batches}`,
    );
  }

  return {
    protocolVersion: meta.protocolVersion,
    schemaSha256: meta.schemaSha256,
    dialect: parsed.dialect,
    generatorVersion: meta.generatorVersion,
    lifecycle: lifecycle as ProtocolModel["lifecycle"],
    batches,
    supportedVersions: [{ version: meta.protocolVersion, batches }, ...(meta.olderVersions ?? [])],
    schemaFixes: parsed.fixes,
    errorCodes: ERROR_CODE_OF.filter(
      (e) => lifecycle === "initialize" && methods.some((m) => m.method === e.key),
    ).map((e) => {
      used.add(`ERROR_CODE_OF:${e.key}`);
      return { name: e.value.name, code: e.value.code, why: e.why };
    }),
    definitions,
    methods,
  };
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Every `$ref` target under a node. */
export function collectRefs(node: SchemaNode, out: Set<string> = new Set()): Set<string> {
  if (node.ref) out.add(node.ref);
  for (const child of childNodes(node)) collectRefs(child, out);
  return out;
}

export function childNodes(node: SchemaNode): SchemaNode[] {
  return [
    ...Object.values(node.properties ?? {}),
    ...Object.values(node.patternProperties ?? {}),
    ...(node.additionalProperties ? [node.additionalProperties] : []),
    ...(node.propertyNames ? [node.propertyNames] : []),
    ...(node.prefixItems ?? []),
    ...(node.items ? [node.items] : []),
    ...(node.anyOf ?? []),
    ...(node.oneOf ?? []),
    ...(node.allOf ?? []),
    ...[node.not, node.if, node.then, node.else].filter((n) => n !== undefined),
  ];
}

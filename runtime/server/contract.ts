/**
 * Serving a contract: the tools, prompts, resources and resource templates a user declared in JSON Schema,
 * with the validators and definitions the generator compiled from it. `serveContract` turns them and the
 * user's per-item handlers into the protocol handlers (`listTools`, `callTool`, `getPrompt`, …), so the
 * lists come from the contract, arguments are checked before a handler runs, and structured results are
 * checked against their output schema before they are sent. Version-agnostic: the generated contract
 * module types everything and hands over what differs between protocol versions.
 */

import { type Check, type Fail, failuresOf } from "../check/check.js";
import { describeEach, describeFailure } from "../check/describe.js";
import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { issuesOf, pointer, type ValidationIssue } from "../mcp/check-errors.js";
import type { AnyHandler } from "../mcp/handler-context.js";
import { entryOf } from "../mcp/tables.js";
import { type TemplatePart, type TemplateValues, UriTemplate } from "../mcp/uri-template.js";
import { InvalidArguments, ResourceNotFound } from "./contract-errors.js";
import { CONTRACT_SCOPES, ContractScopes } from "./contract-scopes.js";
import { SKILLS_TABLE, type SkillsTable } from "./skills-table.js";
import { declaredTaskSupport, TASK_TOOLS, type TaskSupport } from "./task-support.js";
import { typeInWords, variableValue } from "./template-values.js";

const TOOL_RESULT: unique symbol = Symbol.for("mcp-codegen.toolResult");

/** A tool's full result, when a handler needs content blocks, `_meta` or `isError` beside its output. */
export type ToolResult<Output, Content = unknown> = (
  | { structuredContent: Output; content?: Content[]; isError?: false; _meta?: Record<string, unknown> }
  | { isError: true; content: Content[]; _meta?: Record<string, unknown> }
) & { readonly [TOOL_RESULT]: true };

/** Marks `result` as a whole tool result rather than the tool's output. */
export function toolResult<Output, Content>(
  result:
    | { structuredContent: Output; content?: Content[]; isError?: false; _meta?: Record<string, unknown> }
    | { isError: true; content: Content[]; _meta?: Record<string, unknown> },
): ToolResult<Output, Content> {
  return Object.defineProperty({ ...result }, TOOL_RESULT, { value: true }) as ToolResult<Output, Content>;
}

const isToolResult = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && TOOL_RESULT in value;

export interface ContractTool {
  /** The `tools/list` entry, as declared. */
  readonly definition: Readonly<Record<string, unknown>> & { readonly name: string };
  readonly input: Check;
  /** Present when the tool declares an `outputSchema`. */
  readonly output?: Check;
  /** Scopes needed to call it, beyond the contract's `auth.scopes` (contract-scopes.ts). */
  readonly scopes?: readonly string[];
}

export interface ContractPromptArgument {
  readonly name: string;
  readonly enum?: readonly string[];
}

export interface ContractPrompt {
  readonly definition: Readonly<Record<string, unknown>> & { readonly name: string };
  readonly arguments: readonly ContractPromptArgument[];
  readonly check: Check;
  /** Scopes needed to get it, beyond the contract's `auth.scopes`. */
  readonly scopes?: readonly string[];
}

export interface ContractResource {
  readonly definition: Readonly<Record<string, unknown>> & { readonly uri: string; readonly name: string };
  /** Scopes needed to read it, beyond the contract's `auth.scopes`. */
  readonly scopes?: readonly string[];
}

export interface ContractVariable {
  readonly name: string;
  /** How the URI's text becomes the handler's value. */
  readonly type: "string" | "number" | "integer" | "boolean" | "array";
  readonly enum?: readonly (string | number | boolean)[];
}

export interface ContractTemplate {
  readonly definition: Readonly<Record<string, unknown>> & {
    readonly uriTemplate: string;
    readonly name: string;
  };
  readonly parts: readonly TemplatePart[];
  readonly variables: readonly ContractVariable[];
  readonly check: Check;
  /** Scopes needed to read a URI it matches, beyond the contract's `auth.scopes`. */
  readonly scopes?: readonly string[];
}

/**
 * An HTML view a tool declares (MCP Apps, `ui:` in the contract): a `ui://` resource served from the
 * table itself, with no handler, its `_meta` (`ui: { csp, permissions, prefersBorder }`) on the listed
 * resource and on the content read.
 */
export interface ContractUiResource {
  readonly definition: Readonly<Record<string, unknown>> & {
    readonly uri: string;
    readonly name: string;
    readonly mimeType: string;
  };
  readonly content: { readonly text: string } | { readonly blob: string };
}

/** What the generator compiled from a contract, keyed by the names the contract gives. */
export interface ContractTables {
  readonly tools: Readonly<Record<string, ContractTool>>;
  readonly prompts: Readonly<Record<string, ContractPrompt>>;
  readonly resources: Readonly<Record<string, ContractResource>>;
  readonly resourceTemplates: Readonly<Record<string, ContractTemplate>>;
  /** The tools' views by `ui://` URI; absent when no tool declares one. */
  readonly ui?: Readonly<Record<string, ContractUiResource>>;
  /** Present when the contract declares `auth`: every request needs a verified token with these scopes. */
  readonly auth?: { readonly scopes: readonly string[] };
  /** Present when the contract declares `skills`: the server serves them (skills-table.ts). */
  readonly skills?: SkillsTable;
}

/** What differs between protocol versions, from the generated module. */
export interface ContractProtocol {
  /**
   * Whether arguments that fail the input schema are a protocol error (-32602) in `version`, as before
   * 2025-11-25, rather than a tool execution error the model can read and correct.
   */
  argumentsErrorIsProtocolError(version: string): boolean;
  /** The error an unknown resource gets (it differs between versions and eras). */
  resourceNotFound(uri: string, ctx: unknown): Error;
}

/** A tool's or prompt's handler: its checked arguments, the context, and the request's whole params. */
// biome-ignore lint/suspicious/noExplicitAny: the generated contract module types every handler.
export type ContractHandler = (args: any, ctx: any, request: any) => unknown;

/** The user's handlers, by contract name; each category is optional when the contract declares none. */
export interface ContractImplementation {
  tools?: Record<string, ContractHandler>;
  prompts?: Record<string, ContractHandler>;
  resources?: Record<string, (ctx: never, uri: string) => unknown>;
  resourceTemplates?: Record<string, (variables: never, ctx: never, uri: string) => unknown>;
  completions?: {
    prompts?: Record<string, Record<string, Completer | undefined> | undefined>;
    resourceTemplates?: Record<string, Record<string, Completer | undefined> | undefined>;
  };
}

/** Suggests values for one prompt argument or template variable from what the user typed so far. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; ctx: never },
) => readonly string[] | Promise<readonly string[]>;

/** An own entry of a table by a name from the wire (never `constructor`, `__proto__` and the like). */
const own = <T>(table: Readonly<Record<string, T>>, key: unknown): T | undefined =>
  typeof key === "string" ? entryOf(table, key) : undefined;

export { describeFailure };

const MAX_COMPLETIONS = 100;

/**
 * -32602 naming each field and rule (`Invalid arguments for tool "add": a: Required; b: Expected number`):
 * `data.issues` holds them as pointers into the params (`/arguments/b`), `field` and `reason` the first.
 */
const invalidArguments = (what: string, failure: Fail): McpError =>
  new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${what}: ${describeFailure(failure)}`, {
    field: failure.path.join("."),
    reason: failure.message,
    issues: issuesOf(failure, "/arguments"),
  });

/** The protocol handlers serving `tables` with `impl`, for a server's `handlers` option. */
export function serveContract(
  tables: ContractTables,
  impl: ContractImplementation,
  protocol: ContractProtocol,
): Record<string, AnyHandler> {
  const handlers: Record<string, AnyHandler> = {};
  const tools = Object.values(tables.tools);
  if (tools.length > 0) {
    const list = Object.freeze({ tools: tools.map((t) => t.definition) });
    handlers.listTools = () => list;
    // Each name's declaration and handler, found once here rather than on every call.
    const served = new Map<string, ServedTool>();
    for (const [name, tool] of Object.entries(tables.tools)) {
      const handler = own(impl.tools ?? {}, name);
      if (handler) served.set(name, { tool, handler });
    }
    handlers.callTool = (
      params: { name: string; arguments?: unknown },
      ctx: { session: { protocolVersion: string } },
    ) => callTool(served, protocol, params, ctx);
  }
  const prompts = Object.values(tables.prompts);
  if (prompts.length > 0) {
    const list = Object.freeze({ prompts: prompts.map((p) => p.definition) });
    handlers.listPrompts = () => list;
    handlers.getPrompt = async (
      params: { name: string; arguments?: Record<string, string> },
      ctx: unknown,
    ) => {
      const prompt = own(tables.prompts, params.name);
      const handler = prompt && own(impl.prompts ?? {}, params.name);
      if (!prompt || !handler) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
      const args = params.arguments ?? {};
      const failure = prompt.check(args);
      if (failure) throw invalidArguments(`prompt "${params.name}"`, failure);
      let result: unknown;
      try {
        result = await handler(args, ctx, params);
      } catch (error) {
        throw error instanceof InvalidArguments ? error.about(`prompt "${params.name}"`) : error;
      }
      return typeof result === "string"
        ? { messages: [{ role: "user", content: { type: "text", text: result } }] }
        : result;
    };
  }
  const resources = Object.values(tables.resources);
  const views = new Map(Object.values(tables.ui ?? {}).map((v) => [v.definition.uri, v]));
  const templates = Object.entries(tables.resourceTemplates).map(([name, t]) => ({
    name,
    entry: t,
    uri: new UriTemplate(t.definition.uriTemplate, t.parts),
  }));
  // Skill files are resources: the server adds them to these handlers (served-skills.ts).
  if (resources.length > 0 || templates.length > 0 || views.size > 0 || tables.skills) {
    const byUri = new Map(
      Object.entries(tables.resources).map(([name, r]) => [r.definition.uri, { name, r }]),
    );
    const list = Object.freeze({
      resources: [...resources.map((r) => r.definition), ...[...views.values()].map((v) => v.definition)],
    });
    const templateList = Object.freeze({ resourceTemplates: templates.map((t) => t.entry.definition) });
    handlers.listResources = () => list;
    if (templates.length > 0) handlers.listResourceTemplates = () => templateList;
    /** The result of the resource or template `uri` names, or undefined for none. */
    const readResource = async (uri: string, ctx: unknown): Promise<unknown> => {
      const view = views.get(uri);
      if (view) return viewResult(view);
      const fixed = byUri.get(uri);
      if (fixed) {
        const handler = own(impl.resources ?? {}, fixed.name);
        if (handler)
          return resourceResult(await handler(ctx as never, uri), uri, fixed.r.definition.mimeType);
      }
      let invalid: McpError | undefined;
      for (const t of templates) {
        const values = t.uri.match(uri);
        if (!values) continue;
        const handler = own(impl.resourceTemplates ?? {}, t.name);
        if (!handler) continue;
        const parsed = parseVariables(t.entry, values);
        if (Array.isArray(parsed)) {
          invalid ??= new McpError(
            ErrorCode.InvalidParams,
            `${uri} matches resource template "${t.name}", but ${parsed.map((p) => p.text).join("; ")}`,
            { uri, issues: parsed.map((p) => p.issue) },
          );
          continue;
        }
        return resourceResult(
          await handler(parsed as never, ctx as never, uri),
          uri,
          t.entry.definition.mimeType,
        );
      }
      if (invalid) throw invalid;
      return undefined;
    };
    handlers.readResource = async (params: { uri: string }, ctx: unknown) => {
      try {
        const result = await readResource(params.uri, ctx);
        // A handler answering nothing names no resource, as one throwing notFound() does.
        if (result !== undefined) return result;
      } catch (error) {
        if (!(error instanceof ResourceNotFound)) throw error;
      }
      throw protocol.resourceNotFound(params.uri, ctx);
    };
  }
  // As the generated `contractHandlers` type says: any prompt argument or template variable can be
  // completed (from its enum, a completer, or with nothing).
  const completes =
    prompts.some((p) => p.arguments.length > 0) || templates.some((t) => t.entry.variables.length > 0);
  if (completes) {
    handlers.complete = (
      params: {
        ref: { type: string; name?: string; uri?: string };
        argument: { name: string; value: string };
        context?: { arguments?: Record<string, string> };
      },
      ctx: unknown,
    ) => complete(tables, templates, impl, params, ctx as never);
  }
  const scopes = new ContractScopes(tables.auth, {
    tools: tables.tools,
    prompts: tables.prompts,
    // A view needs what the contract's `auth` asks, nothing more: a host reads it to render the tool.
    resources: [
      ...resources.map((r) => ({ uri: r.definition.uri, ...scopesOf(r) })),
      ...[...views.keys()].map((uri) => ({ uri })),
    ],
    templates: templates.map((t) => ({
      uri: t.uri,
      text: t.entry.definition.uriTemplate,
      ...scopesOf(t.entry),
    })),
  });
  // Which tools may run as tasks, on each handler for the same reason (task-support.ts).
  const taskTools: Record<string, TaskSupport> = {};
  for (const [name, tool] of Object.entries(tables.tools)) {
    const support = declaredTaskSupport(tool);
    if (support) taskTools[name] = support;
  }
  if (Object.keys(taskTools).length > 0) {
    Object.freeze(taskTools);
    for (const handler of Object.values(handlers))
      Object.defineProperty(handler, TASK_TOOLS, { value: taskTools });
  }
  if (tables.skills)
    for (const handler of Object.values(handlers))
      Object.defineProperty(handler, SKILLS_TABLE, { value: tables.skills });
  // On each handler, so the server finds them however the handlers are combined; a contract that
  // declares no scope costs its server nothing per request.
  if (scopes.authRequired || scopes.supported.length > 0)
    for (const handler of Object.values(handlers))
      Object.defineProperty(handler, CONTRACT_SCOPES, { value: scopes });
  return handlers;
}

const scopesOf = (item: { readonly scopes?: readonly string[] }) =>
  item.scopes ? { scopes: item.scopes } : {};

interface ServedTool {
  readonly tool: ContractTool;
  readonly handler: ContractHandler;
}

/**
 * Not async: a handler that answers synchronously is answered without a promise (the session's fast
 * path), as an untyped handler would be; a promise from the handler is followed with `then`.
 */
function callTool(
  served: ReadonlyMap<string, ServedTool>,
  protocol: ContractProtocol,
  params: { name: string; arguments?: unknown },
  ctx: { session: { protocolVersion: string } },
): unknown {
  const entry = served.get(params.name);
  if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  const { tool, handler } = entry;
  const args = params.arguments ?? {};
  const failure = tool.input(args);
  if (failure) {
    const error = invalidArguments(`tool "${params.name}"`, failure);
    if (protocol.argumentsErrorIsProtocolError(ctx.session.protocolVersion)) throw error;
    return { content: [{ type: "text", text: error.message }], isError: true };
  }
  let returned: unknown;
  try {
    returned = handler(args, ctx, params);
  } catch (error) {
    return toolError(protocol, params.name, ctx, error);
  }
  return returned instanceof Promise
    ? returned.then(
        (r: unknown) => toolAnswer(tool, params.name, r),
        (error: unknown) => toolError(protocol, params.name, ctx, error),
      )
    : toolAnswer(tool, params.name, returned);
}

/** A tool handler's `invalidArguments(…)` answered as a failed input check is; anything else as it was thrown. */
function toolError(
  protocol: ContractProtocol,
  name: string,
  ctx: { session: { protocolVersion: string } },
  error: unknown,
): unknown {
  if (!(error instanceof InvalidArguments)) throw error;
  const answer = error.about(`tool "${name}"`);
  if (protocol.argumentsErrorIsProtocolError(ctx.session.protocolVersion)) throw answer;
  return { content: [{ type: "text", text: answer.message }], isError: true };
}

/** What a tool handler returned, as the result sent: text wrapped, output checked and sent twice (as JSON text too). */
function toolAnswer(tool: ContractTool, name: string, returned: unknown): unknown {
  if (!tool.output) {
    if (typeof returned === "string") return { content: [{ type: "text", text: returned }] };
    if (isToolResult(returned)) return { ...returned };
    return returned;
  }
  if (isToolResult(returned)) {
    const result: Record<string, unknown> = { ...returned };
    if (result.isError === true) return result;
    return checkedOutput(tool, name, result.structuredContent, result);
  }
  return checkedOutput(tool, name, returned, undefined);
}

/**
 * The output is serialized once and what is checked and sent is that JSON, parsed: a getter or `toJSON`
 * answering differently on a later read cannot slip an unchecked value out.
 */
function checkedOutput(
  tool: ContractTool,
  name: string,
  output: unknown,
  result: Record<string, unknown> | undefined,
): unknown {
  const text = jsonOf(name, output);
  const sent: unknown = text === undefined ? undefined : JSON.parse(text);
  const mismatch = tool.output!(sent);
  if (mismatch) {
    throw new McpError(
      ErrorCode.InternalError,
      `Tool "${name}" returned output that does not match its outputSchema: ${describeFailure(mismatch)}`,
    );
  }
  // Clients that predate structured content read the text block: the same serialization.
  if (!result) return { structuredContent: sent, content: [{ type: "text", text }] };
  result.structuredContent = sent;
  result.content ??= [{ type: "text", text }];
  return result;
}

/** The output as JSON text (undefined for no JSON value); a cycle or a BigInt is the tool's bug: -32603. */
function jsonOf(name: string, output: unknown): string | undefined {
  try {
    return JSON.stringify(output);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new McpError(ErrorCode.InternalError, `Tool "${name}" returned output that is not JSON: ${why}`);
  }
}

/** A view's `resources/read` result: its HTML, mime type and `_meta` (where hosts read `_meta.ui`). */
function viewResult(view: ContractUiResource): unknown {
  const { uri, mimeType, _meta } = view.definition;
  return { contents: [{ uri, mimeType, ...view.content, ...(_meta === undefined ? {} : { _meta }) }] };
}

function resourceResult(returned: unknown, uri: string, mimeType: unknown): unknown {
  const mime = typeof mimeType === "string" ? { mimeType } : {};
  if (typeof returned === "string") return { contents: [{ uri, ...mime, text: returned }] };
  if (typeof returned === "object" && returned !== null && !("contents" in returned)) {
    return { contents: [{ uri, ...mime, ...returned }] };
  }
  return returned;
}

/** A variable the URI's text gives wrongly: as the error's text says it, and as a `data.issues` entry. */
interface VariableProblem {
  readonly text: string;
  /** Its path: a pointer into the template's variables (`/id`). */
  readonly issue: ValidationIssue;
}

/**
 * A template's variables from the URI's text to the types the contract declares, or every problem: the
 * variables whose text is not of their type, then the check's failures on the others.
 */
function parseVariables(
  template: ContractTemplate,
  values: TemplateValues,
): Record<string, unknown> | VariableProblem[] {
  const out: Record<string, unknown> = {};
  const problems: VariableProblem[] = [];
  const untyped = new Set<string>();
  for (const variable of template.variables) {
    const raw = values[variable.name];
    if (raw === undefined) continue;
    const value = variableValue(variable.type, raw);
    if (value === undefined) {
      const text = JSON.stringify(Array.isArray(raw) ? raw.join(",") : raw);
      const type = typeInWords(variable.type);
      untyped.add(variable.name);
      problems.push({
        text: `variable "${variable.name}" is not ${type}: ${text}`,
        issue: { path: pointer([variable.name]), message: `Expected ${type}: ${text}` },
      });
      continue;
    }
    out[variable.name] = value;
  }
  const failure = template.check(out);
  if (failure) {
    // A variable left out above for its type would fail again here as missing.
    const issues = issuesOf(failure);
    const described = describeEach(failure);
    failuresOf(failure).forEach((f, i) => {
      const left = f.path.length > 0 && untyped.has(String(f.path[0]));
      if (!left) problems.push({ text: described[i]!, issue: issues[i]! });
    });
  }
  return problems.length > 0 ? problems : out;
}

async function complete(
  tables: ContractTables,
  templates: { name: string; entry: ContractTemplate }[],
  impl: ContractImplementation,
  params: {
    ref: { type: string; name?: string; uri?: string };
    argument: { name: string; value: string };
    context?: { arguments?: Record<string, string> };
  },
  ctx: never,
): Promise<unknown> {
  const { ref, argument } = params;
  let choices: readonly (string | number | boolean)[] | undefined;
  let completer: Completer | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = own(tables.prompts, ref.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    const arg = prompt.arguments.find((a) => a.name === argument.name);
    if (!arg)
      throw new McpError(ErrorCode.InvalidParams, `Prompt "${ref.name}" has no argument "${argument.name}"`);
    choices = arg.enum;
    completer = own(own(impl.completions?.prompts ?? {}, ref.name) ?? {}, argument.name);
  } else {
    const template = templates.find((t) => t.entry.definition.uriTemplate === ref.uri);
    if (!template) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    const variable = template.entry.variables.find((v) => v.name === argument.name);
    if (!variable)
      throw new McpError(ErrorCode.InvalidParams, `Template "${ref.uri}" has no variable "${argument.name}"`);
    choices = variable.enum;
    completer = own(own(impl.completions?.resourceTemplates ?? {}, template.name) ?? {}, argument.name);
  }
  const values = completer
    ? await completer(argument.value, { arguments: params.context?.arguments ?? {}, ctx })
    : (choices ?? []).map(String).filter((c) => c.startsWith(argument.value));
  return {
    completion: {
      values: values.slice(0, MAX_COMPLETIONS),
      total: values.length,
      hasMore: values.length > MAX_COMPLETIONS,
    },
  };
}

/**
 * Calling a contract: the client side of `serveContract`. A generated client module (from `pull`) hands
 * over, per tool, prompt and resource template, the plain checks the generator compiled from the
 * server's schemas; `bindContract` turns them and any client with `callTool` / `getPrompt` /
 * `readResource` into one method per item. Arguments are checked before anything is sent (so a wrong
 * call fails here, naming the field), a tool's `structuredContent` is checked against its outputSchema,
 * and a tool's `isError` result rejects. Version-agnostic: the generated module types everything.
 */

import type { Check, Fail } from "../check/check.js";
import { describeFailure } from "../check/describe.js";
import { isObject } from "../jsonrpc/messages.js";
import { type TemplatePart, UriTemplate } from "../mcp/uri-template.js";
import type { ToolTask } from "./tool-task.js";

/** What a client needs to call a contract: the generated client of any protocol version has these. */
export interface ContractClient {
  callTool(
    params: { name: string; arguments?: { [key: string]: unknown } },
    options?: never,
  ): Promise<unknown>;
  getPrompt(
    params: { name: string; arguments?: { [key: string]: string } },
    options?: never,
  ): Promise<unknown>;
  readResource(params: { uri: string }, options?: never): Promise<unknown>;
  /** A tool call run as a task, held (the runtime `Client` has it): what `tasks.<tool>` calls. */
  startToolTask?(
    params: { name: string; arguments?: { [key: string]: unknown } },
    options?: never,
  ): Promise<ToolTask>;
}

export interface ContractClientTool {
  readonly name: string;
  /** Absent when the tool's inputSchema could not be compiled: its arguments go unchecked. */
  readonly input?: Check;
  /** Present when the tool declares an outputSchema: the call resolves to the checked structuredContent. */
  readonly output?: Check;
  /** The tool declares an outputSchema that could not be compiled: resolves to structuredContent unchecked. */
  readonly structured?: true;
  /** `execution.taskSupport` when the tool may run as a task (absent: forbidden). */
  readonly taskSupport?: "optional" | "required";
}

export interface ContractClientPrompt {
  readonly name: string;
  readonly check: Check;
}

export interface ContractClientResource {
  readonly uri: string;
}

export interface ContractClientTemplate {
  readonly uriTemplate: string;
  readonly parts: readonly TemplatePart[];
  readonly check: Check;
}

/** What the generator compiled from a pulled contract, keyed by the server's names. */
export interface ContractClientTables {
  readonly tools: Readonly<Record<string, ContractClientTool>>;
  readonly prompts: Readonly<Record<string, ContractClientPrompt>>;
  readonly resources: Readonly<Record<string, ContractClientResource>>;
  readonly resourceTemplates: Readonly<Record<string, ContractClientTemplate>>;
}

export interface BindOptions {
  /** Check arguments (and template variables) before sending (default true). */
  checkArguments?: boolean;
}

/** Arguments that fail the schema the server declared: nothing was sent. */
export class InvalidArgumentsError extends Error {
  override name = "InvalidArgumentsError";
  /** The failing field's path (`a.b.0`), "" for the arguments object itself. */
  readonly field: string;
  readonly reason: string;
  constructor(
    /** `tools.add`, `prompts.review`, `resourceTemplates.file`. */
    readonly target: string,
    failure: Fail,
  ) {
    super(`Invalid arguments for ${target}: ${describeFailure(failure)}`);
    this.field = failure.path.join(".");
    this.reason = failure.message;
  }
}

/**
 * A tool call that did not produce its output: the tool answered `isError: true` (`kind: "isError"`), or
 * its `structuredContent` is missing or does not match the outputSchema (`kind: "output"`). The content
 * blocks and the whole result travel with it.
 */
export class ToolCallError extends Error {
  override name = "ToolCallError";
  constructor(
    readonly tool: string,
    readonly kind: "isError" | "output",
    message: string,
    readonly content: unknown[],
    readonly result: unknown,
  ) {
    super(message);
  }
}

/** The text blocks of a tool result, joined: what a model would have read. */
function textOf(content: unknown[]): string {
  return content
    .filter(
      (b): b is { type: "text"; text: string } =>
        isObject(b) && b.type === "text" && typeof b.text === "string",
    )
    .map((b) => b.text)
    .join("\n");
}

/** A tool's result as a bound method answers it: `isError` or a wrong output rejects; else the output. */
function outputOf(tool: ContractClientTool, result: unknown): unknown {
  const record = isObject(result) ? result : {};
  const content = Array.isArray(record.content) ? record.content : [];
  if (record.isError === true) {
    const text = textOf(content);
    throw new ToolCallError(
      tool.name,
      "isError",
      `Tool "${tool.name}" failed${text ? `: ${text}` : ""}`,
      content,
      result,
    );
  }
  if (!tool.output && !tool.structured) return result;
  const structured = record.structuredContent;
  if (structured === undefined)
    throw new ToolCallError(
      tool.name,
      "output",
      `Tool "${tool.name}" declares an outputSchema but returned no structuredContent`,
      content,
      result,
    );
  const mismatch = tool.output?.(structured);
  if (mismatch)
    throw new ToolCallError(
      tool.name,
      "output",
      `Tool "${tool.name}" returned structuredContent that does not match its outputSchema: ${describeFailure(mismatch)}`,
      content,
      result,
    );
  return structured;
}

type Method = (...args: never[]) => Promise<unknown>;

/** One method per item of `tables`, calling `client`; the generated module gives it its types. */
export function bindContract(
  tables: ContractClientTables,
  client: ContractClient,
  options: BindOptions = {},
): {
  tools: Record<string, Method>;
  tasks: Record<string, Method>;
  prompts: Record<string, Method>;
  resources: Record<string, Method>;
  resourceTemplates: Record<string, Method>;
} {
  const checking = options.checkArguments !== false;
  const checked = (target: string, check: Check | undefined, value: unknown) => {
    const failure = checking && check ? check(value) : undefined;
    if (failure) throw new InvalidArgumentsError(target, failure);
  };
  // Calls go through the client untyped: the generated types stand for what each version accepts.
  const call = client as unknown as Record<
    "callTool" | "getPrompt" | "readResource",
    (params: unknown, options?: unknown) => Promise<unknown>
  >;
  // No prototype: a tool may be named `__proto__` or `constructor` like any other.
  const tools: Record<string, Method> = Object.create(null);
  const tasks: Record<string, Method> = Object.create(null);
  for (const [name, tool] of Object.entries(tables.tools)) {
    tools[name] = (async (args: Record<string, unknown> = {}, callOptions?: unknown) => {
      checked(`tools.${name}`, tool.input, args);
      // A tool that runs only as a task is called as one, its result awaited through it.
      const options =
        tool.taskSupport === "required" && !(isObject(callOptions) && callOptions.task)
          ? { ...(isObject(callOptions) ? callOptions : {}), task: true }
          : callOptions;
      return outputOf(tool, await call.callTool({ name: tool.name, arguments: args }, options));
    }) as Method;
    if (!tool.taskSupport) continue;
    tasks[name] = (async (args: Record<string, unknown> = {}, callOptions?: unknown) => {
      checked(`tasks.${name}`, tool.input, args);
      if (!client.startToolTask)
        throw new TypeError(`tasks.${name}: the bound client cannot hold tasks (it has no startToolTask)`);
      const task = await client.startToolTask({ name: tool.name, arguments: args }, callOptions as never);
      const held: ToolTask = {
        taskId: task.taskId,
        created: task.created,
        status: () => task.status(),
        cancel: () => task.cancel(),
        result: async (options) => outputOf(tool, await task.result(options)),
      };
      return held;
    }) as Method;
  }
  const prompts: Record<string, Method> = Object.create(null);
  for (const [name, prompt] of Object.entries(tables.prompts)) {
    prompts[name] = (async (args: Record<string, string> = {}, callOptions?: unknown) => {
      checked(`prompts.${name}`, prompt.check, args);
      return call.getPrompt({ name: prompt.name, arguments: args }, callOptions);
    }) as Method;
  }
  const resources: Record<string, Method> = Object.create(null);
  for (const [name, resource] of Object.entries(tables.resources)) {
    resources[name] = ((callOptions?: unknown) =>
      call.readResource({ uri: resource.uri }, callOptions)) as Method;
  }
  const resourceTemplates: Record<string, Method> = Object.create(null);
  for (const [name, template] of Object.entries(tables.resourceTemplates)) {
    const uri = new UriTemplate(template.uriTemplate, template.parts);
    resourceTemplates[name] = (async (variables: Record<string, unknown> = {}, callOptions?: unknown) => {
      checked(`resourceTemplates.${name}`, template.check, variables);
      return call.readResource({ uri: uri.expand(variables) }, callOptions);
    }) as Method;
  }
  return { tools, tasks, prompts, resources, resourceTemplates };
}

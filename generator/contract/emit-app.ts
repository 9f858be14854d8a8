/**
 * `app.ts`, for a contract whose tools declare views (`ui:`): the view side's binding of the runtime's
 * view module (`@mcp-codegen/runtime/view`) with the contract's types. A view's TypeScript imports it and
 * is bundled into the HTML file the contract names. Per view: the tools it serves (a union by tool name,
 * told apart by the host context's `toolInfo`, which the extension leaves optional: without it, the
 * view's only tool a model can call), their input as the contract's input types, their results'
 * `structuredContent` checked against the output schema; `callTool` typed by name and limited to the
 * tools whose visibility has `app` (a tool without `ui:` is visible to both, as the extension says).
 */

import { dataLiteral, literalUnion, memberKey, objectKey, stringLiteral } from "../protocol/escape.js";
import { checkName, typeName } from "../protocol/naming.js";
import type { ContractModel } from "./model.js";

export function appModule(contract: ContractModel): string {
  const views = contract.ui ?? [];
  const tools = contract.tools
    .map(
      (t) =>
        `  ${memberKey(t.name)}: { input: C.${typeName(t.input)}; output: ${t.output ? `C.${typeName(t.output)}` : "undefined"} };`,
    )
    .join("\n");
  const appTools = contract.tools.filter((t) => !t.ui || t.ui.visibility.includes("app")).map((t) => t.name);
  const viewTypes = views
    .map((v) => `  ${stringLiteral(v.uri)}: ${literalUnion(v.tools.map((t) => t.name))};`)
    .join("\n");
  const outputs = contract.tools
    .filter((t) => t.output)
    .map((t) => `  ${objectKey(t.name)}: V.${checkName(t.output!)},`)
    .join("\n");
  const viewTable = views.map(
    (v) => `  ${stringLiteral(v.uri)}: ${dataLiteral(v.tools.map((t) => t.name))},`,
  );
  const openerTable = views.map(
    (v) =>
      `  ${stringLiteral(v.uri)}: ${dataLiteral(v.tools.filter((t) => t.visibility.includes("model")).map((t) => t.name))},`,
  );
  return `import {
  connectView,
  type View,
  type ViewHandlers,
  type ViewOptions,
  type ViewToolResult,
} from "@mcp-codegen/runtime/view";
import type * as C from "./types.js";
import * as V from "./validators.js";

/** Each tool's arguments and structured output, as the contract declares them. */
export interface Tools {
${tools}
}

/** The tools a view may call: those whose visibility has \`app\` (hosts refuse the others). */
export type AppTool = ${literalUnion(appTools)};

/** Each view, by its \`ui://\` URI, and the tools it serves. */
export interface Views {
${viewTypes}
}

/** What a view of \`U\` receives as tool input: which of its tools, with the contract's input type. */
export type ToolInput<U extends keyof Views> = {
  [N in Views[U]]: { tool: N; arguments: Tools[N]["input"] };
}[Views[U]];

/** A tool result a view of \`U\` receives; \`structuredContent\` only when it passed the output schema. */
export type ToolOutput<U extends keyof Views> = {
  [N in Views[U]]: { tool: N; result: ViewToolResult; structuredContent?: Tools[N]["output"] };
}[Views[U]];

export interface AppHandlers<U extends keyof Views>
  extends Pick<ViewHandlers, "toolCancelled" | "hostContextChanged" | "teardown" | "error"> {
  toolInput?(input: ToolInput<U>): void;
  toolResult?(output: ToolOutput<U>): void;
}

export interface App<U extends keyof Views> {
  readonly view: View;
  /** The tool this view shows, from the host context (or the view's only tool). */
  readonly tool: Views[U] | undefined;
  /** Calls a tool through the host; a structured result is checked against its output schema. */
  callTool<N extends AppTool>(
    name: N,
    args: Tools[N]["input"],
  ): Promise<{ result: ViewToolResult; structuredContent?: Tools[N]["output"] }>;
  close(): void;
}

const OUTPUTS: { readonly [N in keyof Tools]?: (value: unknown) => { path: (string | number)[]; message: string } | undefined } = {
${outputs}
};

const VIEWS: { readonly [U in keyof Views]: readonly Views[U][] } = {
${viewTable.join("\n")}
};

/** Each view's tools a model can call (visibility has \`model\`): a host opens a view for a model's call. */
const OPENERS: { readonly [U in keyof Views]: readonly Views[U][] } = {
${openerTable.join("\n")}
};

/** The result's \`structuredContent\` when it passes \`tool\`'s output schema; an Error naming the first failure when not. */
function checked(tool: string, result: ViewToolResult): { structuredContent?: unknown } | Error {
  if (result.isError === true || result.structuredContent === undefined) return {};
  const check = Object.hasOwn(OUTPUTS, tool) ? OUTPUTS[tool as keyof Tools] : undefined;
  const failure = check?.(result.structuredContent);
  if (failure)
    return new Error(\`\${tool} returned output that does not match its outputSchema: \${failure.path.join(".") || "(root)"}: \${failure.message}\`);
  return { structuredContent: result.structuredContent };
}

/** Connects the view \`uri\` to its host, with the contract's types. */
export async function connectApp<U extends keyof Views>(
  uri: U,
  options: ViewOptions,
  handlers: AppHandlers<U> = {},
): Promise<App<U>> {
  const serves = VIEWS[uri] as readonly string[];
  const openers = OPENERS[uri] as readonly string[];
  let connected: View | undefined;
  /** The host context's tool when this view serves it, else the only one of its tools a model can call (or its only tool). */
  const toolOf = (): string | undefined => {
    const named = connected?.host.hostContext.toolInfo?.tool?.name;
    if (typeof named === "string" && serves.includes(named)) return named;
    const candidates = openers.length > 0 ? openers : serves;
    return candidates.length === 1 ? candidates[0] : undefined;
  };
  const unnamed = () =>
    new Error(
      \`\${uri}: the host named no tool of this view (hostContext.toolInfo), and \${openers.length ? \`a model's call of \${openers.join(" or ")} opens it\` : "none of its tools is visible to the model"}\`,
    );
  const fail = (error: Error) => handlers.error?.(error);
  const view = await connectView(options, {
    ...handlers,
    toolInput: (args) => {
      const tool = toolOf();
      if (tool === undefined) return fail(unnamed());
      handlers.toolInput?.({ tool, arguments: args } as ToolInput<U>);
    },
    toolResult: (result) => {
      const tool = toolOf();
      if (tool === undefined) return fail(unnamed());
      const output = checked(tool, result);
      if (output instanceof Error) return fail(output);
      handlers.toolResult?.({ tool, result, ...output } as ToolOutput<U>);
    },
  });
  connected = view;
  return {
    view,
    get tool() {
      return toolOf() as Views[U] | undefined;
    },
    async callTool(name, args) {
      const result = await view.callTool(name, args as Record<string, unknown>);
      const output = checked(name, result);
      if (output instanceof Error) throw output;
      return { result, ...output } as { result: ViewToolResult; structuredContent?: Tools[typeof name]["output"] };
    },
    close: () => view.close(),
  };
}
`;
}

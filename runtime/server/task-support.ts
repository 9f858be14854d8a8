/**
 * Which tools may or must run as tasks (`Tool.execution.taskSupport`): the server option `taskTools`,
 * else what a served contract declares (`execution: { taskSupport }` in contract.yaml, which
 * `serveContract` puts on every handler it makes under TASK_TOOLS). A tool named nowhere is `forbidden`.
 */

export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * A tool's task declaration in the `taskTools` option: its support, or the support and a grace. With a
 * grace (2026-07-28 tasks extension), a call first runs as a plain request for up to `graceMs`: input
 * asked for meanwhile is answered as an input round (InputRequiredResult, as for any tool); an optional
 * tool that finishes meanwhile answers its result (the immediate-result shortcut); otherwise the call
 * becomes a task once the grace has passed, and the handler goes on as one. Without (the default, 0),
 * the task is created before the handler runs, and any input it asks for is the task's.
 */
export type TaskToolDeclaration =
  | TaskSupport
  | { readonly taskSupport: TaskSupport; readonly graceMs?: number };

/** A tool that may run as a task, as the server holds it. */
export interface TaskTool {
  readonly support: "optional" | "required";
  readonly graceMs: number;
}

/** The key under which the handlers `serveContract` makes carry their contract's task tools. */
export const TASK_TOOLS: unique symbol = Symbol.for("mcp-codegen.taskTools");

const SUPPORTS: ReadonlySet<string> = new Set(["forbidden", "optional", "required"]);

/** Task support by tool name: the option over the contract's; only tools that allow tasks are kept. */
export function taskToolsOf(
  option: Readonly<Record<string, TaskToolDeclaration>> | undefined,
  handlers: Readonly<Record<string, unknown>>,
): ReadonlyMap<string, TaskTool> {
  // Found on any handler serveContract made: a user may wrap or pick them (a wrapped callTool included).
  let fromContract: Readonly<Record<string, TaskSupport>> | undefined;
  for (const handler of Object.values(handlers)) {
    if (typeof handler === "function")
      fromContract ??= (handler as { [TASK_TOOLS]?: Readonly<Record<string, TaskSupport>> })[TASK_TOOLS];
  }
  const merged: Record<string, unknown> = { ...(fromContract ?? {}), ...(option ?? {}) };
  const tools = new Map<string, TaskTool>();
  for (const [name, declared] of Object.entries(merged)) {
    const { taskSupport: support, graceMs = 0 } = (
      typeof declared === "object" && declared !== null ? declared : { taskSupport: declared }
    ) as { taskSupport?: unknown; graceMs?: unknown };
    if (typeof support !== "string" || !SUPPORTS.has(support))
      throw new TypeError(
        `taskTools.${name}: ${JSON.stringify(support)} is not forbidden, optional or required`,
      );
    if (typeof graceMs !== "number" || !(graceMs >= 0))
      throw new TypeError(`taskTools.${name}.graceMs: ${JSON.stringify(graceMs)} is not a number of ms`);
    if (support === "optional" || support === "required") tools.set(name, { support, graceMs });
  }
  return tools;
}

/** What a contract tool declares: `taskSupport` in the contract tables, else its definition's `execution`. */
export function declaredTaskSupport(tool: {
  readonly definition: Readonly<Record<string, unknown>>;
}): TaskSupport | undefined {
  const own = (tool as { taskSupport?: unknown }).taskSupport;
  const execution = tool.definition.execution as { taskSupport?: unknown } | undefined;
  const support = own ?? execution?.taskSupport;
  return typeof support === "string" && SUPPORTS.has(support) ? (support as TaskSupport) : undefined;
}

/**
 * Which tools may or must run as tasks (`Tool.execution.taskSupport`): the server option `taskTools`,
 * else what a served contract declares (`execution: { taskSupport }` in contract.yaml, which
 * `serveContract` puts on its `callTool` under TASK_TOOLS). A tool named nowhere is `forbidden`.
 */

export type TaskSupport = "forbidden" | "optional" | "required";

/** The key under which `serveContract`'s `callTool` carries its contract's task tools. */
export const TASK_TOOLS: unique symbol = Symbol.for("mcp-codegen.taskTools");

const SUPPORTS: ReadonlySet<string> = new Set(["forbidden", "optional", "required"]);

/** Task support by tool name: the option over the contract's; only tools that allow tasks are kept. */
export function taskToolsOf(
  option: Readonly<Record<string, TaskSupport>> | undefined,
  handlers: Readonly<Record<string, unknown>>,
): ReadonlyMap<string, "optional" | "required"> {
  const callTool = handlers.callTool as { [TASK_TOOLS]?: Readonly<Record<string, TaskSupport>> } | undefined;
  const declared = typeof callTool === "function" ? callTool[TASK_TOOLS] : undefined;
  const merged: Record<string, unknown> = { ...(declared ?? {}), ...(option ?? {}) };
  const tools = new Map<string, "optional" | "required">();
  for (const [name, support] of Object.entries(merged)) {
    if (typeof support !== "string" || !SUPPORTS.has(support))
      throw new TypeError(
        `taskTools.${name}: ${JSON.stringify(support)} is not forbidden, optional or required`,
      );
    if (support === "optional" || support === "required") tools.set(name, support);
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

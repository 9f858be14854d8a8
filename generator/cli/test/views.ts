/**
 * A tool's `ui:` (MCP Apps) under `mcp-codegen test`, read as a host reads it with the runtime client's
 * Apps helpers: its `tools/list` entry links the view the contract names (`toolUi`: `_meta.ui.resourceUri`,
 * and the flat `ui/resourceUri` when given) with the declared visibility (absent: model and app); a tool
 * without `model` is left out of `modelTools`, one with it kept; and the view itself, read with `readUi`
 * (the exact mime type, the HTML, `_meta.ui` checked), is the HTML the contract's file holds, with the
 * declared csp, permissions and prefersBorder.
 */

import { modelTools, readUi, toolUi } from "@mcp-codegen/runtime/client";
import type { ContractTool } from "../../contract/model.js";
import type { ContractUi } from "../../contract/ui.js";
import { type ItemOutcome, type ItemRun, printItem } from "./run.js";
import type { ServerSession } from "./session.js";
import { show } from "./verdicts.js";

const FLAT_KEY = "ui/resourceUri";
const BOTH = ["model", "app"];

/** The visibility a tools/list entry gives: `_meta.ui.visibility`, both when absent. */
function visibilityOf(tool: Record<string, unknown>): unknown {
  const meta = tool._meta as { ui?: { visibility?: unknown } } | undefined;
  return meta?.ui?.visibility ?? BOTH;
}

const sameSet = (a: unknown, b: readonly string[]): boolean =>
  Array.isArray(a) && a.length === b.length && b.every((v) => a.includes(v));

/** The view's HTML as the contract holds it. */
const htmlOf = (view: ContractUi): string =>
  "text" in view.content ? view.content.text : Buffer.from(view.content.blob, "base64").toString("utf8");

/** The index of the first character where `a` and `b` differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** What the served view's `_meta.ui` field must be: the contract's, `{}` for csp and permissions when undeclared. */
function declaredUi(view: ContractUi): { csp: unknown; permissions: unknown; prefersBorder: unknown } {
  const ui = (view.definition._meta as { ui?: Record<string, unknown> } | undefined)?.ui ?? {};
  return { csp: ui.csp ?? {}, permissions: ui.permissions ?? {}, prefersBorder: ui.prefersBorder };
}

/** One tool's link and view on `session`: the problems found, and what held (for the summary). */
async function viewProblems(
  tool: ContractTool,
  views: readonly ContractUi[],
  session: ServerSession,
  tick: (() => void) | undefined,
): Promise<{ problems: string[]; said: string[] }> {
  const link = tool.ui!;
  const problems: string[] = [];
  const said: string[] = [];
  tick?.();
  let tools: Record<string, unknown>[];
  try {
    tools = (await session.listTools()) as Record<string, unknown>[];
  } catch (e) {
    tools = [];
    problems.push(`tools/list failed: ${(e as Error).message}`);
  }
  const listed = tools.find((t) => t?.name === tool.name);
  if (!listed && problems.length === 0) problems.push(`${tool.name}: missing from tools/list`);
  if (listed) {
    try {
      const uri = toolUi(listed as { name: string });
      if (uri !== link.uri)
        problems.push(`_meta.ui.resourceUri: contract ${show(link.uri)}, server ${show(uri)}`);
    } catch (e) {
      problems.push((e as Error).message);
    }
    const flat = (listed._meta as Record<string, unknown> | undefined)?.[FLAT_KEY];
    if (flat !== undefined && flat !== link.uri)
      problems.push(`_meta["${FLAT_KEY}"]: contract ${show(link.uri)}, server ${show(flat)}`);
    const visibility = visibilityOf(listed);
    if (!sameSet(visibility, link.visibility))
      problems.push(`_meta.ui.visibility: contract ${show(link.visibility)}, server ${show(visibility)}`);
    const forModel = modelTools(tools as { name: string }[]).some((t) => t.name === tool.name);
    if (forModel !== link.visibility.includes("model"))
      problems.push(
        forModel
          ? "modelTools keeps it for the model, though the contract makes it app-only"
          : "modelTools hides it from the model, though the contract's visibility has model",
      );
    said.push(
      `visibility ${link.visibility.join(", ")}${link.visibility.includes("model") ? "" : " (hidden from the model)"}`,
    );
  }
  const view = link.uri === undefined ? undefined : views.find((v) => v.uri === link.uri);
  if (view) {
    tick?.();
    try {
      let resources: unknown[] = [];
      try {
        resources = await session.listResources();
      } catch {
        // A server need not list its views: readUi reads the content's own _meta.ui.
      }
      const entry = resources.find((r) => (r as { uri?: unknown } | null)?.uri === view.uri) as
        | { uri?: string; _meta?: unknown }
        | undefined;
      const read = await readUi(await session.client(), view.uri, entry ? { listed: entry } : {});
      const html = htmlOf(view);
      if (read.html !== html)
        problems.push(
          `${view.uri}: the HTML differs from the contract's file from character ${firstDifference(read.html, html)} on (${Buffer.byteLength(read.html)} bytes served, ${Buffer.byteLength(html)} in the file): regenerate the server after the view changes`,
        );
      const want = declaredUi(view);
      for (const key of ["csp", "permissions", "prefersBorder"] as const)
        if (show(read[key]) !== show(want[key]))
          problems.push(
            `${view.uri}: _meta.ui.${key}: contract ${show(want[key])}, server ${show(read[key])}`,
          );
      said.unshift(
        `${view.uri} read (${Buffer.byteLength(html)} bytes of HTML, csp and permissions as declared)`,
      );
    } catch (e) {
      problems.push(`${view.uri}: ${(e as Error).message}`);
    }
  } else said.unshift("no view");
  return { problems, said };
}

/**
 * One tool's link and view (`views` are the contract's), on the items' session and, when the server
 * speaks 2026-07-28, on `stateless` too: a server may serve each era its own way.
 */
export async function testView(
  tool: ContractTool,
  views: readonly ContractUi[],
  run: ItemRun,
  stateless: ServerSession | undefined,
): Promise<ItemOutcome> {
  const sessions = [run.session, ...(stateless ? [stateless] : [])];
  const problems: string[] = [];
  let said: string[] = [];
  for (const session of sessions) {
    const found = await viewProblems(tool, views, session, run.tick);
    said = found.said;
    const era = sessions.length > 1 ? `${session.protocolVersion}: ` : "";
    problems.push(...found.problems.map((p) => `${era}${p}`));
  }
  const eras = sessions.map((s) => s.protocolVersion).join(" and ");
  return printItem(run, `view ${tool.name}`, {
    summary:
      problems.length === 0
        ? `${said.join("; ")} in ${eras}`
        : "not linked or served as the contract's ui: says",
    problems: problems.map((p) => `    problem:   ${p}`),
  });
}

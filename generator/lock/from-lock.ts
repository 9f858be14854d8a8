/**
 * A lock → the contract model, so a pulled server's client goes through the same emitters as a declared
 * contract. A pulled tool's schemas are self-contained (each may carry `$defs` and point into itself with
 * `#/...`); their definitions are hoisted under the tool's own names (`<Tool>Input<Def>`) and the
 * references rewritten. A schema from someone else's server may use a keyword the strict loader refuses:
 * that tool is kept, its input typed as a loose object and its output as `unknown`, unchecked, with a
 * warning naming the tool and the keyword; a prompt or template that cannot be read is left out, warned.
 */

import { hoistSchema } from "../contract/hoist.js";
import { buildContract, ContractError, typeNamesOf } from "../contract/load.js";
import type { ContractModel } from "../contract/model.js";
import { isExecution, TASK_SUPPORT } from "../contract/task-support.js";
import { isObject } from "../protocol/load.js";
import { record } from "../util/records.js";
import type { ContractLock } from "./lock.js";

type Raw = Record<string, unknown>;
type Declared = Parameters<typeof buildContract>[1];

/** Definition fields buildContract takes; a server may send more (the lock keeps them all). */
const TOOL_FIELDS = ["title", "description", "inputSchema", "outputSchema", "annotations", "execution"];
const PROMPT_FIELDS = ["title", "description", "arguments"];
const ARGUMENT_FIELDS = ["name", "title", "description", "required"];
const RESOURCE_FIELDS = ["uri", "title", "description", "mimeType"];
const TEMPLATE_FIELDS = ["uriTemplate", "title", "description", "mimeType"];

const pick = (raw: Raw, keys: readonly string[]): Raw =>
  Object.fromEntries(keys.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));

/** What could not be compiled, per tool: the reason for its input and/or output. */
export { hoistSchema };

export type LooseTools = Record<string, { input?: string; output?: string }>;

export interface PulledContract {
  model: ContractModel;
  loose: LooseTools;
  warnings: string[];
}

const empty = (): Declared => ({
  tools: record(),
  prompts: record(),
  resources: record(),
  templates: record(),
  defs: record(),
});

/** Whether buildContract takes `declared`; the reason when not. */
function refusal(declared: Declared): string | undefined {
  try {
    buildContract("lock", declared);
    return undefined;
  } catch (e) {
    if (e instanceof ContractError) return e.message.replace(/^lock: /, "");
    throw e;
  }
}

/** The contract model of `lock`, with what was typed loosely and why. */
export function contractFromLock(
  lock: ContractLock,
  source = `${lock.server.name} (pulled)`,
): PulledContract {
  const warnings: string[] = [];
  const loose: LooseTools = record();
  const declared = empty();
  const entry = (raw: Raw) => ({ raw, file: source });

  // The names buildContract gives the tools' types, so that hoisted definitions are named alike.
  const toolTypes = typeNamesOf(lock.tools.map((t) => t.name));

  for (const { name, definition } of lock.tools) {
    const typeName = toolTypes.get(name)!;
    const tool = pick(definition, TOOL_FIELDS);
    // What the client needs of it is the task support; one the protocol does not name is dropped.
    if (tool.execution !== undefined && !isExecution(tool.execution)) {
      warnings.push(
        `tool "${name}": its execution is left out (taskSupport is none of ${TASK_SUPPORT.join(", ")})`,
      );
      delete tool.execution;
    }
    const reasons: { input?: string; output?: string } = {};
    const defs = record<unknown>();
    for (const [key, side] of [
      ["inputSchema", "input"],
      ["outputSchema", "output"],
    ] as const) {
      if (tool[key] === undefined) continue;
      let hoisted: ReturnType<typeof hoistSchema>;
      try {
        hoisted = hoistSchema(tool[key], `${typeName}${side === "input" ? "Input" : "Output"}`);
      } catch (e) {
        reasons[side] = (e as Error).message;
        continue;
      }
      const trial = empty();
      trial.tools[name] = entry({
        inputSchema: side === "input" ? hoisted.root : { type: "object" },
        ...(side === "output" ? { outputSchema: hoisted.root } : {}),
      });
      for (const [d, s] of Object.entries(hoisted.defs)) trial.defs[d] = { raw: s, file: source };
      const why = refusal(trial);
      if (why) reasons[side] = why;
      else {
        tool[key] = hoisted.root;
        Object.assign(defs, hoisted.defs);
      }
    }
    if (reasons.input) tool.inputSchema = { type: "object" };
    if (reasons.output) delete tool.outputSchema;
    const trial = empty();
    trial.tools[name] = entry(tool);
    for (const [d, s] of Object.entries(defs)) trial.defs[d] = { raw: s, file: source };
    const why = refusal(trial);
    if (why) {
      warnings.push(`tool "${name}" is left out of the client: ${why}`);
      continue;
    }
    // A definition name the tool's neighbours already use would be refused: keep the first tool.
    if (Object.keys(defs).some((d) => declared.defs[d])) {
      warnings.push(
        `tool "${name}" is left out of the client: its definitions' names clash with another tool's`,
      );
      continue;
    }
    declared.tools[name] = entry(tool);
    for (const [d, s] of Object.entries(defs)) declared.defs[d] = { raw: s, file: source };
    if (reasons.input || reasons.output) {
      loose[name] = reasons;
      if (reasons.input)
        warnings.push(
          `tool "${name}": its inputSchema is typed as Record<string, unknown> and not checked (${reasons.input})`,
        );
      if (reasons.output)
        warnings.push(
          `tool "${name}": its outputSchema is typed as unknown and not checked (${reasons.output})`,
        );
    }
  }

  for (const { name, definition } of lock.prompts) {
    const prompt = pick(definition, PROMPT_FIELDS);
    if (Array.isArray(prompt.arguments))
      prompt.arguments = prompt.arguments.map((a) => (isObject(a) ? pick(a, ARGUMENT_FIELDS) : a));
    const trial = empty();
    trial.prompts[name] = entry(prompt);
    const why = refusal(trial);
    if (why) warnings.push(`prompt "${name}" is left out of the client: ${why}`);
    else declared.prompts[name] = entry(prompt);
  }

  const resourceNames = new Set<string>();
  for (const { name, definition } of lock.resources) {
    if (resourceNames.has(name)) {
      warnings.push(
        `resource "${name}" (${String(definition.uri)}) is left out of the client: another resource has its name`,
      );
      continue;
    }
    const resource = pick(definition, RESOURCE_FIELDS);
    const trial = empty();
    trial.resources[name] = entry(resource);
    const why = refusal(trial);
    if (why) warnings.push(`resource "${name}" is left out of the client: ${why}`);
    else {
      resourceNames.add(name);
      declared.resources[name] = entry(resource);
    }
  }

  for (const { name, definition } of lock.resourceTemplates) {
    const template = pick(definition, TEMPLATE_FIELDS);
    const trial = empty();
    trial.templates[name] = entry(template);
    const why = refusal(trial);
    if (why) warnings.push(`resource template "${name}" is left out of the client: ${why}`);
    else declared.templates[name] = entry(template);
  }

  try {
    return { model: buildContract(source, declared), loose, warnings };
  } catch (e) {
    // Each item passed alone; together only type names can clash (`get-sum` and `get_sum`).
    if (e instanceof ContractError)
      throw new ContractError(source, "", `cannot build a client: ${e.message}`);
    throw e;
  }
}

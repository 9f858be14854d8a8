/**
 * `--only` and `--skip` of `mcp-codegen test`: which items to test, by name (`add`), by kind and name
 * (`tool:add`, `prompt:review`, `template:item`, `resource:readme`, `skill:pdf-processing`
 * by its path, `view:show_counter` by its tool) or by kind (`tool:*`). Several are
 * given comma-separated or by repeating the flag. A name the contract does not declare is a usage error,
 * so a typo never turns into a run that tests nothing and passes.
 */

import { CliError } from "../errors.js";

export type ItemKind = "tool" | "prompt" | "template" | "resource" | "skill" | "view";

export interface Named {
  kind: ItemKind;
  name: string;
}

const KINDS: ReadonlySet<string> = new Set<ItemKind>([
  "tool",
  "prompt",
  "template",
  "resource",
  "skill",
  "view",
]);

/** commander's collector for a repeatable, comma-separated option. */
export const collect = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== ""),
];

interface Pattern {
  text: string;
  kind?: ItemKind;
  name: string;
}

function parse(text: string): Pattern {
  const colon = text.indexOf(":");
  const kind = colon > 0 ? text.slice(0, colon) : "";
  return KINDS.has(kind)
    ? { text, kind: kind as ItemKind, name: text.slice(colon + 1) }
    : { text, name: text };
}

const matches = (p: Pattern, item: Named): boolean =>
  (p.kind === undefined || p.kind === item.kind) &&
  (p.name === "*" ? p.kind !== undefined : p.name === item.name);

/** Whether each item is tested; throws a CliError naming a pattern that matches no declared item. */
export function selection(items: readonly Named[], only: readonly string[], skip: readonly string[]) {
  const check = (flag: string, texts: readonly string[]): Pattern[] =>
    texts.map((text) => {
      const p = parse(text);
      if (!items.some((item) => matches(p, item)))
        throw new CliError(
          `--${flag} ${text}: the contract declares no ${p.kind ?? "tool, prompt, template, resource, skill or view"} ${p.name === "*" ? "at all" : `named ${p.name}`} (kinds: tool, prompt, template, resource, skill, view; e.g. tool:add)`,
        );
      return p;
    });
  const included = check("only", only);
  const excluded = check("skip", skip);
  return (item: Named): boolean =>
    (included.length === 0 || included.some((p) => matches(p, item))) &&
    !excluded.some((p) => matches(p, item));
}

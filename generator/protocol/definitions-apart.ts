/**
 * Reads each definition of a schema made one document per definition as its own document. ext-apps'
 * schema.json is written by zod's `toJSONSchema` definition by definition: where a definition has its own
 * `$defs` (`McpUiHostContext`'s `__schema0`, a JSON value), its `$ref: "#/$defs/__schema0"` means that
 * definition's root, while in the whole file `#` is the file's root, where no `__schema0` exists. Each
 * nested definition becomes a top-level one named `<Definition>Defs<Name>` (`McpUiHostContextDefsSchema0`:
 * the name's letters and digits, first one upper case, so it stays a type name as it is), and the
 * references inside its definition point there. Returns the names made, in order.
 */

import { escapePointer, isObject, SchemaLoadError } from "./load.js";

type Doc = Record<string, unknown>;

export function hoistNestedDefinitions(doc: Doc, file: string): string[] {
  const defs = doc.$defs;
  if (!isObject(defs)) return [];
  const made: string[] = [];
  for (const name of Object.keys(defs)) {
    const definition = defs[name];
    if (!isObject(definition) || !isObject(definition.$defs)) continue;
    const nested = definition.$defs;
    delete definition.$defs;
    const renamed = new Map<string, string>();
    for (const inner of Object.keys(nested)) {
      const bare = inner.replace(/[^A-Za-z0-9]/g, "");
      const top = `${name}Defs${bare.charAt(0).toUpperCase()}${bare.slice(1)}`;
      if (Object.hasOwn(defs, top) || renamed.has(top)) {
        throw new SchemaLoadError(
          file,
          `/$defs/${escapePointer(name)}/$defs/${escapePointer(inner)}`,
          `cannot read this nested definition apart: ${top} is already a definition`,
        );
      }
      renamed.set(inner, top);
    }
    const rewrite = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(rewrite);
      else if (isObject(node)) {
        if (typeof node.$ref === "string" && node.$ref.startsWith("#/$defs/")) {
          const target = renamed.get(node.$ref.slice("#/$defs/".length));
          if (target !== undefined) node.$ref = `#/$defs/${target}`;
        }
        Object.values(node).forEach(rewrite);
      }
    };
    rewrite(definition);
    for (const [inner, top] of renamed) {
      rewrite(nested[inner]);
      defs[top] = nested[inner];
      made.push(top);
    }
  }
  return made;
}

/**
 * URIs of a resource template from its variables' values, for `mcp-codegen test`: RFC 6570 expansion
 * with the runtime's own `UriTemplate`, and the proof that a URI reads back as the values it came from,
 * as a contract server reads it (match, then each value's text by its declared type). A value the
 * template cannot carry (a prefix `{v:3}` cutting it short, two adjacent variables, a reserved expansion
 * whose text ends the expression) does not read back, and is not sent as if it were valid.
 */

import { UriTemplate } from "@mcp-codegen/runtime/codegen";
import type { ContractTemplate } from "../contract/model.js";
import type { Json } from "../protocol/load.js";

export function uriTemplateOf(template: ContractTemplate): UriTemplate {
  return new UriTemplate(template.definition.uriTemplate as string, template.parts);
}

/** Whether the variables a server matches in `uri` are exactly `values`, each as its text. */
export function readsBack(
  uriTemplate: UriTemplate,
  template: ContractTemplate,
  values: Readonly<Record<string, Json>>,
  uri: string,
): boolean {
  const got = uriTemplate.match(uri);
  if (!got) return false;
  for (const variable of template.variables) {
    const want = values[variable.name];
    const raw = got[variable.name];
    if (Array.isArray(want)) {
      // As the server reads a list: one text is a list of one, an empty text or none an empty list.
      const list = raw === undefined ? [] : Array.isArray(raw) ? raw : raw === "" ? [] : [raw];
      if (list.length !== want.length || list.some((x, i) => x !== String(want[i]))) return false;
    } else if (want === undefined || want === null) {
      if (raw !== undefined) return false;
    } else if (raw !== String(want)) return false;
  }
  return true;
}

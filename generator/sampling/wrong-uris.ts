/**
 * URIs a server must refuse: a resource template's valid variables with one variable's text a value its
 * declared type does not take (`abc` for an integer, a number or a boolean) or outside its enum. Only
 * where the template can carry that text (it reads back from the URI) and the contract's own check
 * refuses it at that variable; a string variable without an enum takes any text, so has no such URI.
 */

import type { UriTemplate } from "@mcp-codegen/runtime/codegen";
import type { CheckFn } from "../contract/checks.js";
import type { ContractTemplate } from "../contract/model.js";
import type { Json } from "../protocol/load.js";
import { readsBack } from "./template-uris.js";

export interface WrongUri {
  /** The variable the mistake is about; the server's refusal must name it. */
  field: string;
  /** `wrong type ("abc")` or `outside its enum (...)`. */
  mistake: string;
  uri: string;
}

/** Texts tried in turn: the first the variable's type or enum refuses is sent. */
const CANDIDATES = ["abc", "not-a-valid-value"];

export function wrongUris(
  uriTemplate: UriTemplate,
  template: ContractTemplate,
  valid: Readonly<Record<string, Json>>,
  check: CheckFn,
): WrongUri[] {
  const out: WrongUri[] = [];
  for (const variable of template.variables) {
    const field = variable.name;
    const typed = variable.type === "integer" || variable.type === "number" || variable.type === "boolean";
    if (!typed && !variable.enum) continue;
    if (variable.type === "array") continue;
    for (const text of CANDIDATES) {
      if (variable.enum?.includes(text)) continue;
      const values = { ...valid, [field]: text };
      if (check(values)?.path[0] !== field) continue;
      const uri = uriTemplate.expand(values);
      if (!readsBack(uriTemplate, template, values, uri)) continue;
      out.push({
        field,
        mistake: typed
          ? `wrong type (${JSON.stringify(text)})`
          : `outside its enum (${JSON.stringify(text)})`,
        uri,
      });
      break;
    }
  }
  return out;
}

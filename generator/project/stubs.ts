/**
 * Keeping the user's contract implementation in step with the contract: `generate` adds a stub for each
 * tool, prompt, resource or resource template the contract declares and the implementation lacks (in
 * `export const contract = { tools: { … }, … }` of the handlers file). Insertions only: what the user
 * wrote stays byte for byte. An entry the contract no longer declares is left alone, and `tsc` reports it
 * (an object literal typed `Contract` may not have unknown properties), pointing at the stale handler.
 */

import type { Node as MorphNode, ObjectLiteralExpression } from "ts-morph";
import type { ContractModel } from "../contract/model.js";
import { commentText, objectKey, stringLiteral } from "../protocol/escape.js";
import { Node, Project } from "../util/ts-morph.js";
import { fileStyle } from "./handlers-style.js";
import { appendProperties, type NewProperty } from "./object-append.js";
import { applyEdits, type TextEdit } from "./text-edits.js";

export interface ContractStubs {
  text: string;
  /** `tools.add`, `prompts.review`, … */
  added: string[];
}

const CATEGORIES = [
  ["tools", "tool", "(_args, _ctx)"],
  ["prompts", "prompt", "(_args, _ctx)"],
  ["resources", "resource", "(_ctx, _uri)"],
  ["resourceTemplates", "resource template", "(_variables, _ctx, _uri)"],
] as const;

/** Names a contract declares, per category. */
function declared(contract: ContractModel): Record<(typeof CATEGORIES)[number][0], string[]> {
  return {
    tools: contract.tools.map((t) => t.name),
    prompts: contract.prompts.map((p) => p.name),
    resources: contract.resources.map((r) => r.name),
    resourceTemplates: contract.resourceTemplates.map((t) => t.name),
  };
}

/**
 * Adds stubs to the `contract` object of `text`. Returns the text unchanged when the file has no
 * `export const contract` (a project that serves its contract some other way).
 */
export function addContractStubs(text: string, contract: ContractModel): ContractStubs {
  const project = new Project({ useInMemoryFileSystem: true });
  const sf = project.createSourceFile("handlers.ts", text);
  const root = objectOf(sf.getVariableDeclaration("contract")?.getInitializer());
  if (!root) return { text, added: [] };
  const style = fileStyle(sf);
  const q = (s: string) => stringLiteral(s, style.quote);
  // A stub type-checks (it never returns) and answers an error until it is written.
  const stub = (noun: string, name: string, params: string): NewProperty => ({
    comment: `// ${commentText(`${noun} ${name}: new in the contract; write it.`)}`,
    text: `${objectKey(name)}: ${params} => { throw new Error(${q(`${noun} ${name} is not implemented yet`)})${style.semicolon ? ";" : ""} }`,
  });
  const names = declared(contract);
  const added: string[] = [];
  const edits: TextEdit[] = [];
  const newCategories: NewProperty[] = [];
  for (const [category, noun, params] of CATEGORIES) {
    const want = names[category];
    if (want.length === 0) continue;
    const initializer = propertyInitializer(root, category);
    const object = objectOf(initializer);
    if (!object) {
      if (initializer !== undefined) continue; // not an object literal: the user's own construction.
      const entries = want.map((name) => stub(noun, name, params).text).join(", ");
      newCategories.push({
        comment: `// ${category}: new in the contract; write them.`,
        text: `${category}: { ${entries} }`,
      });
      for (const name of want) added.push(`${category}.${name}`);
      continue;
    }
    const present = new Set(
      object.getProperties().flatMap((p) => {
        const key = keyOf(p);
        return key === undefined ? [] : [key];
      }),
    );
    const missing = want.filter((name) => !present.has(name));
    edits.push(
      ...appendProperties(
        object,
        missing.map((name) => stub(noun, name, params)),
        style,
      ),
    );
    for (const name of missing) added.push(`${category}.${name}`);
  }
  edits.push(...appendProperties(root, newCategories, style));
  return { text: added.length === 0 ? text : applyEdits(text, edits), added };
}

function objectOf(node: MorphNode | undefined): ObjectLiteralExpression | undefined {
  let n = node;
  while (n && (Node.isSatisfiesExpression(n) || Node.isAsExpression(n) || Node.isParenthesizedExpression(n)))
    n = n.getExpression();
  return n && Node.isObjectLiteralExpression(n) ? n : undefined;
}

function propertyInitializer(object: ObjectLiteralExpression, name: string): MorphNode | undefined {
  const p = object.getProperty(name) ?? object.getProperty(JSON.stringify(name));
  return p && Node.isPropertyAssignment(p) ? p.getInitializer() : p;
}

/**
 * The name a property declares, as the text it spells: `"a\u2028b"`, `'x'` and `["__proto__"]` (how
 * stubs write names that are no identifiers) read back as those names; undefined for a spread or a
 * computed key that is not a string literal.
 */
function keyOf(p: MorphNode): string | undefined {
  if (!Node.isPropertyAssignment(p) && !Node.isMethodDeclaration(p) && !Node.isShorthandPropertyAssignment(p))
    return undefined;
  const name = p.getNameNode();
  const literal = Node.isComputedPropertyName(name) ? name.getExpression() : name;
  if (Node.isStringLiteral(literal) || Node.isNoSubstitutionTemplateLiteral(literal))
    return literal.getLiteralValue();
  return Node.isComputedPropertyName(name) ? undefined : name.getText();
}

/**
 * Keeping the user's contract implementation in step with the contract: `generate` adds a stub for each
 * tool, prompt, resource or resource template the contract declares and the implementation lacks (in
 * `export const contract = { tools: { … }, … }` of the handlers file). Insertions only: what the user
 * wrote stays byte for byte. An entry the contract no longer declares is left alone, and `tsc` reports it
 * (an object literal typed `Contract` may not have unknown properties), pointing at the stale handler.
 */

import { IndentationText, Node, type ObjectLiteralExpression, Project, QuoteKind } from "ts-morph";
import { propertyKey } from "../naming.js";
import type { ContractModel } from "./model.js";

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

const unquote = (name: string) => name.replace(/^["']|["']$/g, "");

/**
 * Adds stubs to the `contract` object of `text`. Returns the text unchanged when the file has no
 * `export const contract` (a project that serves its contract some other way).
 */
export function addContractStubs(text: string, contract: ContractModel): ContractStubs {
  const project = new Project({
    useInMemoryFileSystem: true,
    manipulationSettings: { indentationText: IndentationText.TwoSpaces, quoteKind: QuoteKind.Double },
  });
  const sf = project.createSourceFile("handlers.ts", text);
  const root = objectOf(sf.getVariableDeclaration("contract")?.getInitializer());
  if (!root) return { text, added: [] };
  const names = declared(contract);
  const added: string[] = [];
  const edits: { at: number; text: string }[] = [];
  const missingCategories: string[] = [];
  for (const [category, noun, params] of CATEGORIES) {
    const want = names[category];
    if (want.length === 0) continue;
    const initializer = propertyInitializer(root, category);
    const object = objectOf(initializer);
    if (!object) {
      if (initializer !== undefined) continue; // not an object literal: the user's own construction.
      const indent = `${indentOf(root)}  `;
      const entries = want.map((name) => stub(noun, name, params, `${indent}  `)).join("\n");
      missingCategories.push(`${indent}${category}: {\n${entries}\n${indent}},`);
      for (const name of want) added.push(`${category}.${name}`);
      continue;
    }
    const present = new Set(
      object.getProperties().flatMap((p) => (hasName(p) ? [unquote(p.getName())] : [])),
    );
    const missing = want.filter((name) => !present.has(name));
    if (missing.length === 0) continue;
    const indent = `${indentOf(object)}  `;
    const entries = missing.map((name) => stub(noun, name, params, indent)).join("\n");
    edits.push(insertion(object, entries));
    for (const name of missing) added.push(`${category}.${name}`);
  }
  if (missingCategories.length > 0) edits.push(insertion(root, missingCategories.join("\n")));
  let out = text;
  for (const edit of edits.sort((a, b) => b.at - a.at))
    out = out.slice(0, edit.at) + edit.text + out.slice(edit.at);
  return { text: out, added };
}

/** A stub that type-checks (it never returns) and answers an error until it is written. */
function stub(noun: string, name: string, params: string, indent: string): string {
  return [
    `${indent}// ${noun} ${name}: new in the contract; write it.`,
    `${indent}${propertyKey(name)}: ${params} => {`,
    `${indent}  throw new Error(${JSON.stringify(`${noun} ${name} is not implemented yet`)});`,
    `${indent}},`,
  ].join("\n");
}

/**
 * Where and what to insert after an object literal's last property: a comma after it when it has
 * none (the inserted entries then end with commas, as most code does).
 */
function insertion(object: ObjectLiteralExpression, entries: string): { at: number; text: string } {
  const last = object.getProperties().at(-1);
  const full = object.getSourceFile().getFullText();
  if (!last) return { at: object.getStart() + 1, text: `\n${entries}\n${indentOf(object)}` };
  let at = last.getEnd();
  const after = /^\s*,/.exec(full.slice(at));
  if (after) at += after[0].length;
  // Past a comment on the same line as the last entry.
  const rest = /^[^\S\n]*\/\/[^\n]*/.exec(full.slice(at));
  if (rest) at += rest[0].length;
  return { at, text: `${after ? "" : ","}\n${entries}` };
}

/** The indentation of the line `node` starts on. */
function indentOf(node: Node): string {
  const full = node.getSourceFile().getFullText();
  const lineStart = full.lastIndexOf("\n", node.getStart() - 1) + 1;
  return /^[ \t]*/.exec(full.slice(lineStart))![0];
}

function hasName(p: Node): p is Node & { getName(): string } {
  return Node.isPropertyAssignment(p) || Node.isMethodDeclaration(p) || Node.isShorthandPropertyAssignment(p);
}

function objectOf(node: Node | undefined): ObjectLiteralExpression | undefined {
  let n = node;
  while (n && (Node.isSatisfiesExpression(n) || Node.isAsExpression(n) || Node.isParenthesizedExpression(n)))
    n = n.getExpression();
  return n && Node.isObjectLiteralExpression(n) ? n : undefined;
}

function propertyInitializer(object: ObjectLiteralExpression, name: string): Node | undefined {
  const p = object.getProperty(name) ?? object.getProperty(JSON.stringify(name));
  return p && Node.isPropertyAssignment(p) ? p.getInitializer() : p;
}

/**
 * Where the stubs' `notImplemented` comes from in a user's handlers file. Never a second import of it:
 * an existing import (under any name, from any module) is used as it is, made a value import when it
 * was type-only; else it joins an existing import of a module that exports it (the generated server.js,
 * index.js re-exporting it, or the runtime's codegen entry) or a namespace import of one; only when
 * there is none does a new import line appear, after the last import.
 */

import { posix } from "node:path";
import type { ImportDeclaration, ImportSpecifier, SourceFile } from "ts-morph";
import { Node } from "../util/ts-morph.js";
import type { FileStyle } from "./handlers-style.js";
import { lineIndent, type TextEdit } from "./text-edits.js";

const NAME = "notImplemented";
const RUNTIME_MODULE = "@mcp-codegen/runtime/codegen";

/** The expression the stubs call, and the edits that bring it into scope. */
export interface Callee {
  callee: string;
  edits: TextEdit[];
}

export function notImplementedCallee(sf: SourceFile, importFrom: string, style: FileStyle): Callee {
  const imports = sf.getImportDeclarations();
  for (const decl of imports) {
    const specifier = decl.getNamedImports().find((s) => s.getName() === NAME);
    if (specifier)
      return {
        callee: (specifier.getAliasNode() ?? specifier.getNameNode()).getText(),
        edits: valueImport(decl, specifier),
      };
  }
  if (declaresOwn(sf)) return { callee: NAME, edits: [] };

  // Modules that export it, best first: the one asked for, its folder's index, the runtime.
  const server = normalize(importFrom);
  const rank = (decl: ImportDeclaration) =>
    [server, posix.dirname(server), RUNTIME_MODULE].indexOf(normalize(decl.getModuleSpecifierValue()));
  const providers = imports
    .filter((d) => rank(d) >= 0)
    .sort((a, b) => rank(a) - rank(b) || a.getStart() - b.getStart());
  const named = providers.find((d) => Node.isNamedImports(d.getImportClause()?.getNamedBindings()));
  if (named) return { callee: NAME, edits: mergeInto(named, style) };
  const namespace = providers.find((d) => !d.isTypeOnly() && d.getNamespaceImport());
  if (namespace) return { callee: `${namespace.getNamespaceImportOrThrow().getText()}.${NAME}`, edits: [] };

  const q = style.quote;
  const line = `import { ${NAME} } from ${q}${importFrom}${q}${style.semicolon ? ";" : ""}`;
  const last = imports.at(-1);
  if (last) return { callee: NAME, edits: [{ pos: last.getEnd(), text: `${style.newline}${line}` }] };
  const shebang = /^#![^\n]*\n/.exec(sf.getFullText())?.[0].length ?? 0;
  return { callee: NAME, edits: [{ pos: shebang, text: `${line}${style.newline}${style.newline}` }] };
}

/** `../generated/server.js`, `../generated/server` and `./../generated/server.ts` name one module; `x/index.js` is `x`. */
function normalize(specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  return posix
    .normalize(specifier)
    .replace(/\.(?:[cm]?[jt]s|tsx)$/, "")
    .replace(/\/index$/, "");
}

/** A top-level `notImplemented` of the user's own (function, variable, class, default import): theirs to call. */
function declaresOwn(sf: SourceFile): boolean {
  return (
    sf.getFunction(NAME) !== undefined ||
    sf.getVariableDeclaration(NAME) !== undefined ||
    sf.getClass(NAME) !== undefined ||
    sf
      .getImportDeclarations()
      .some((d) => d.getDefaultImport()?.getText() === NAME || d.getNamespaceImport()?.getText() === NAME)
  );
}

/** Edits that drop `type` from `import type { … }`, keeping the other names type-only. */
function dropTypeOnly(decl: ImportDeclaration, except?: ImportSpecifier): TextEdit[] {
  if (!decl.isTypeOnly()) return [];
  const clause = decl.getImportClauseOrThrow();
  const keyword = /^type\s+/.exec(clause.getText())![0];
  return [
    { pos: clause.getStart(), remove: keyword.length, text: "" },
    ...decl
      .getNamedImports()
      .filter((s) => s !== except && !s.isTypeOnly())
      .map((s) => ({ pos: s.getStart(), text: "type " })),
  ];
}

/** Makes an existing import of `notImplemented` a value import (it is called, not only named as a type). */
function valueImport(decl: ImportDeclaration, specifier: ImportSpecifier): TextEdit[] {
  const own = specifier.isTypeOnly()
    ? [{ pos: specifier.getStart(), remove: /^type\s+/.exec(specifier.getText())![0].length, text: "" }]
    : [];
  return [...own, ...dropTypeOnly(decl, specifier)];
}

/** Adds `notImplemented` to an import's names, in alphabetical place (ignoring case and `type`). */
function mergeInto(decl: ImportDeclaration, style: FileStyle): TextEdit[] {
  const names = decl.getNamedImports();
  const bindings = decl.getImportClauseOrThrow().getNamedBindingsOrThrow();
  const multiline = bindings.getText().includes("\n");
  const key = (s: ImportSpecifier) => (s.getAliasNode() ?? s.getNameNode()).getText().toLowerCase();
  const next = names.find((s) => key(s) > NAME.toLowerCase());
  let insert: TextEdit;
  if (next) {
    const gap = multiline
      ? `${style.newline}${lineIndent(decl.getSourceFile().getFullText(), next.getStart())}`
      : " ";
    insert = { pos: next.getStart(), text: `${NAME},${gap}` };
  } else if (names.length === 0) {
    insert = { pos: bindings.getStart() + 1, text: ` ${NAME} ` };
  } else {
    const last = names.at(-1)!;
    const sf = decl.getSourceFile().compilerNode;
    const afterLast = bindings.compilerNode.getChildren(sf)[1]!.getChildren(sf).at(-1)!.end;
    const indent = lineIndent(sf.text, last.getStart());
    insert = !multiline
      ? { pos: last.getEnd(), text: `, ${NAME}` }
      : afterLast > last.getEnd()
        ? { pos: afterLast, text: `${style.newline}${indent}${NAME},` }
        : { pos: last.getEnd(), text: `,${style.newline}${indent}${NAME}` };
  }
  return [insert, ...dropTypeOnly(decl)];
}

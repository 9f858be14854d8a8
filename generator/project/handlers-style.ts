/**
 * How a user's handlers file is written (line endings, quotes, semicolons, indentation), so that what
 * `generate` inserts reads as if the user had typed it.
 */

import type { SourceFile } from "ts-morph";

export interface FileStyle {
  newline: "\n" | "\r\n";
  quote: '"' | "'";
  semicolon: boolean;
  /** One level of indentation: a tab, or the narrowest indentation of a code line (2 spaces by default). */
  indentUnit: string;
}

export function fileStyle(sf: SourceFile): FileStyle {
  const text = sf.getFullText();
  const imports = sf.getImportDeclarations();
  const specifier = imports[0]?.getModuleSpecifier().getText();
  const statement = imports.at(-1) ?? sf.getStatements()[0];
  return {
    newline: text.includes("\r\n") ? "\r\n" : "\n",
    quote: specifier?.startsWith("'") ? "'" : '"',
    semicolon: statement ? statement.getText().endsWith(";") : true,
    indentUnit: indentUnit(text),
  };
}

function indentUnit(text: string): string {
  let narrowest = Number.POSITIVE_INFINITY;
  for (const line of text.split("\n")) {
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent === "" || line.trim() === "" || /^[ \t]*\*/.test(line)) continue; // block comment bodies
    if (indent.startsWith("\t")) return "\t";
    narrowest = Math.min(narrowest, indent.length);
  }
  return narrowest === Number.POSITIVE_INFINITY ? "  " : " ".repeat(narrowest);
}

/**
 * Appending properties to an object literal the way its author writes them: the indentation of its
 * entries, a blank line between entries when they have one, a comma after each entry when the last one
 * has a trailing comma (an object with no multi-line entries yet gets them, as formatters do).
 */

import type { ObjectLiteralExpression } from "ts-morph";
import { ts } from "../util/ts-morph.js";
import type { FileStyle } from "./handlers-style.js";
import { lineIndent, lineStart, type TextEdit } from "./text-edits.js";

/** A property to append, with the one-line comment written above it. */
export interface NewProperty {
  comment: string;
  text: string;
}

export function appendProperties(
  object: ObjectLiteralExpression,
  properties: readonly NewProperty[],
  style: FileStyle,
): TextEdit[] {
  if (properties.length === 0) return [];
  const sf = object.getSourceFile().compilerNode;
  const text = sf.text;
  const node = object.compilerNode;
  const list = node.properties;
  const last = list.at(-1);
  const open = node.getStart(sf);
  const close = node.getEnd() - 1;
  const nl = style.newline;
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  // After the last entry and its comma, and after a comment on the same line.
  const afterLast = node.getChildren(sf)[1]?.getChildren(sf).at(-1)?.end ?? open + 1;
  const end = Math.max(afterLast, ...(ts.getTrailingCommentRanges(text, afterLast) ?? []).map((c) => c.end));
  const missingComma = last && !list.hasTrailingComma ? [{ pos: last.end, text: "," }] : [];

  if (last && line(end) < line(close)) {
    // A multi-line object: new entries go on their own lines after the last one.
    const indent = lineIndent(text, last.getStart(sf));
    const gaps = list.slice(1).map((p, i) => text.slice(list[i]!.end, p.getStart(sf)));
    const blank = gaps.filter((g) => /\n[ \t]*\r?\n/.test(g)).length * 2 > gaps.length && gaps.length > 0;
    const comma = list.hasTrailingComma;
    const entries = properties.map(
      (p, i) =>
        `${nl}${blank ? nl : ""}${indent}${p.comment}${nl}${indent}${p.text}${comma || i < properties.length - 1 ? "," : ""}`,
    );
    return [...missingComma, { pos: end, text: entries.join("") }];
  }

  // Empty, or on one line: one entry a line from here on, each with its comma.
  const outer = lineIndent(text, open);
  const indent = outer + style.indentUnit;
  const entries = properties.map((p) => `${indent}${p.comment}${nl}${indent}${p.text},${nl}`).join("");
  if (text.slice(lineStart(text, close), close).trim() === "") {
    // The closing brace starts its line: the entries go just above it.
    return [...missingComma, { pos: lineStart(text, close), text: entries }];
  }
  const between = text.slice(end, close);
  const remove = between.trim() === "" ? between.length : 0;
  return [...missingComma, { pos: end, remove, text: `${nl}${entries}${outer}` }];
}

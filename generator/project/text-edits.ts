/**
 * Changes to a user's file as plain text edits against the original: nothing else in the file moves, and
 * no syntax tree is mutated (a mutated ts-morph tree forgets the nodes that were read before the edit).
 */

/** Insert `text` at `pos` of the original text, replacing `remove` characters there. */
export interface TextEdit {
  pos: number;
  text: string;
  remove?: number;
}

/** Applies edits made against one original, from the end so positions stay valid; ties keep their order. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const order = edits.map((edit, index) => ({ edit, index }));
  order.sort((a, b) => b.edit.pos - a.edit.pos || b.index - a.index);
  let out = text;
  for (const { edit } of order)
    out = out.slice(0, edit.pos) + edit.text + out.slice(edit.pos + (edit.remove ?? 0));
  return out;
}

/** The white space that starts the line holding `pos`. */
export function lineIndent(text: string, pos: number): string {
  const start = lineStart(text, pos);
  return /^[ \t]*/.exec(text.slice(start, pos))![0];
}

export const lineStart = (text: string, pos: number): number => text.lastIndexOf("\n", pos - 1) + 1;

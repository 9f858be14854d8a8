/**
 * A small line-breaking printer for emitted code: a group prints on one line when it fits the width,
 * otherwise one item per line, indented, each followed by a comma. Emitters build docs; nothing else
 * formats schemas.ts, so generation does not pay for a general-purpose formatter on it.
 */

export type Doc = string | Group | Doc[];

export interface Group {
  open: string;
  items: Doc[];
  close: string;
}

export const WIDTH = 110;

export const group = (open: string, items: Doc[], close: string): Group => ({ open, items, close });

/** The doc on one line. */
export function flat(doc: Doc): string {
  if (typeof doc === "string") return doc;
  if (Array.isArray(doc)) return doc.map(flat).join("");
  const inner = doc.items.map(flat).join(", ");
  // `{ a }` keeps its inner spaces; brackets and parentheses hug their contents.
  return doc.open.endsWith("{") && inner
    ? `${doc.open} ${inner} ${doc.close}`
    : `${doc.open}${inner}${doc.close}`;
}

/** Prints `doc` starting at `column` with `indent` as the current indentation. */
export function print(doc: Doc, indent = 0, column = indent): string {
  const oneLine = flat(doc);
  if (column + oneLine.length <= WIDTH || typeof doc === "string") return oneLine;
  if (Array.isArray(doc)) {
    let out = "";
    let col = column;
    for (const part of doc) {
      const text = print(part, indent, col);
      out += text;
      const nl = text.lastIndexOf("\n");
      col = nl === -1 ? col + text.length : text.length - nl - 1;
    }
    return out;
  }
  const pad = " ".repeat(indent + 2);
  const items = doc.items.map((item) => `${pad}${print(item, indent + 2)},`).join("\n");
  return `${doc.open}\n${items}\n${" ".repeat(indent)}${doc.close}`;
}

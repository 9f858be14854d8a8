/**
 * Canonical JSON: one text per JSON value, whatever the order its object members were written in
 * (members sorted by key, UTF-16 code unit order; no whitespace; strings and numbers as JSON.stringify
 * writes them). Iterative, so a deeply nested value costs time linear in its size and never the stack.
 */

/** A piece of output already written, as opposed to a value still to serialize. */
class Raw {
  constructor(readonly text: string) {}
}

/** Leaving an object or array (to tell a cycle from a value seen twice). */
class Leave {
  constructor(readonly value: object) {}
}

/**
 * The canonical text of `value`, a JSON value (what JSON.parse returns). Members whose value is
 * undefined, a function or a symbol are left out, as JSON.stringify does; a cycle, a bigint or a
 * non-finite number throws TypeError.
 */
export function canonicalJson(value: unknown): string {
  let out = "";
  const work: unknown[] = [value];
  const open = new Set<object>();
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Raw) {
      out += item.text;
      continue;
    }
    if (item instanceof Leave) {
      open.delete(item.value);
      continue;
    }
    if (item === null || typeof item === "boolean" || typeof item === "string") {
      out += JSON.stringify(item);
      continue;
    }
    if (typeof item === "number") {
      if (!Number.isFinite(item)) throw new TypeError(`canonical JSON: ${item} is not a JSON number`);
      out += JSON.stringify(item);
      continue;
    }
    if (typeof item !== "object") throw new TypeError(`canonical JSON: a ${typeof item} is not JSON`);
    if (open.has(item)) throw new TypeError("canonical JSON: the value contains a cycle");
    open.add(item);
    work.push(new Leave(item));
    // Pushed in reverse: the work list is a stack.
    if (Array.isArray(item)) {
      work.push(new Raw("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        const element = item[i] as unknown;
        work.push(isSkipped(element) ? null : element);
        if (i > 0) work.push(new Raw(","));
      }
      work.push(new Raw("["));
      continue;
    }
    const record = item as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => !isSkipped(record[k]))
      .sort();
    work.push(new Raw("}"));
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      work.push(record[key]);
      work.push(new Raw(`${i > 0 ? "," : ""}${JSON.stringify(key)}:`));
    }
    work.push(new Raw("{"));
  }
  return out;
}

const isSkipped = (value: unknown) =>
  value === undefined || typeof value === "function" || typeof value === "symbol";

/**
 * RFC 6570 URI templates at run time: matching a URI against a template (a server finding the resource
 * template a `resources/read` names, and its variables) and expanding one (a client building the URI).
 * The template text is parsed by the generator, with a URI-template library, into `TemplatePart`s that
 * generated code hands over; nothing here parses template syntax, so the runtime needs no dependency.
 */

/** One expression's variable: `{name}`, `{name*}` (explode) or `{name:3}` (prefix). */
export interface TemplateVariable {
  readonly name: string;
  readonly explode?: true;
  readonly prefix?: number;
}

/** A template part: literal text, or an expression with its operator (`""`, `+`, `#`, `.`, `/`, `;`, `?`, `&`). */
export type TemplatePart =
  | string
  | { readonly op: "" | "+" | "#" | "." | "/" | ";" | "?" | "&"; readonly vars: readonly TemplateVariable[] };

/** Values a match yields: a string per variable present, a list for exploded or list-valued variables. */
export type TemplateValues = Record<string, string | string[]>;

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What a variable's value may contain before it ends, per operator (reserved expansion allows more). */
const VALUE: Readonly<Record<string, string>> = Object.freeze({
  "": "[^/?#,]*",
  "+": "[^?#]*?",
  "#": ".*?",
  ".": "[^/?#.]*",
  "/": "[^/?#]*",
  ";": "[^/?#;]*",
});

/**
 * A compiled template: one anchored regular expression for the path-like parts, with the query
 * (`{?a,b}`, `{&c}`) read as name=value pairs in any order, as clients write them.
 */
export class UriTemplate {
  readonly #regex: RegExp;
  /** For each capture group: the variable and how to split it. */
  readonly #groups: { name: string; op: string; explode: boolean; named: boolean }[] = [];
  /** Variables read from the query string, by name. */
  readonly #query = new Map<string, { explode: boolean }>();

  constructor(
    readonly template: string,
    readonly parts: readonly TemplatePart[],
  ) {
    let source = "^";
    let queryAtEnd = true;
    for (let i = parts.length - 1; i >= 0; i--) {
      const part = parts[i]!;
      if (typeof part === "string" || (part.op !== "?" && part.op !== "&")) {
        queryAtEnd = parts.slice(i + 1).every((p) => typeof p !== "string" && (p.op === "?" || p.op === "&"));
        break;
      }
    }
    for (const part of parts) {
      if (typeof part === "string") {
        source += escapeRegExp(part);
        continue;
      }
      if ((part.op === "?" || part.op === "&") && queryAtEnd) {
        for (const v of part.vars) this.#query.set(v.name, { explode: !!v.explode });
        continue;
      }
      source += this.#expression(part.op, part.vars);
    }
    if (this.#query.size > 0) source += "(?:\\?([^#]*))?";
    // A fragment the template does not read is ignored.
    if (!parts.some((p) => typeof p !== "string" && p.op === "#")) source += "(?:#.*)?";
    source += "$";
    this.#regex = new RegExp(source, "s");
  }

  #expression(op: string, vars: readonly TemplateVariable[]): string {
    const group = (v: TemplateVariable, named: boolean) => {
      this.#groups.push({ name: v.name, op, explode: !!v.explode, named });
    };
    switch (op) {
      case "":
      case "+":
      case "#": {
        // Values are joined by ",", and a variable that is undefined is left out with its comma.
        const value = valuePattern(op, vars.length > 1);
        const body = vars
          .map((x, i) => {
            group(x, false);
            return i === 0 ? `(${value})` : `(?:,(${value}))?`;
          })
          .join("");
        return op === "#" ? `(?:#${body})?` : body;
      }
      case ".":
      case "/": {
        const sep = escapeRegExp(op);
        return vars
          .map((x) => {
            group(x, false);
            return x.explode ? `((?:${sep}${VALUE[op]})*)` : `(?:${sep}(${VALUE[op]}(?:,${VALUE[op]})*))?`;
          })
          .join("");
      }
      case ";":
        return vars
          .map((x) => {
            group(x, true);
            return `(?:;${escapeRegExp(x.name)}(?:=(${VALUE[";"]}))?)?`;
          })
          .join("");
      default:
        // `?`/`&` in the middle of a template: positional name=value pairs.
        return vars
          .map((x, i) => {
            group(x, true);
            const lead = op === "?" && i === 0 ? "\\?" : "&";
            return `(?:${lead}${escapeRegExp(x.name)}=([^&#]*))?`;
          })
          .join("");
    }
  }

  /** The variables of `uri` when it matches the template, else undefined (also for bad percent-encoding). */
  match(uri: string): TemplateValues | undefined {
    const m = this.#regex.exec(uri);
    if (!m) return undefined;
    const out: TemplateValues = {};
    try {
      let g = 1;
      for (const group of this.#groups) {
        const raw = m[g++];
        if (raw === undefined) continue;
        if (group.explode && (group.op === "/" || group.op === ".")) {
          out[group.name] = raw === "" ? [] : raw.slice(1).split(group.op).map(decodeURIComponent);
        } else if (raw.includes(",") && group.op !== "+" && group.op !== "#") {
          out[group.name] = raw.split(",").map(decodeURIComponent);
        } else {
          out[group.name] = decodeURIComponent(raw);
        }
      }
      if (this.#query.size > 0) {
        const query = m[g];
        if (query !== undefined && query !== "") {
          for (const pair of query.split("&")) {
            const eq = pair.indexOf("=");
            const name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
            const spec = this.#query.get(name);
            if (!spec) continue;
            const value = eq === -1 ? "" : pair.slice(eq + 1);
            const previous = out[name];
            if (spec.explode) {
              const list = Array.isArray(previous) ? previous : previous === undefined ? [] : [previous];
              list.push(decodeURIComponent(value));
              out[name] = list;
            } else {
              out[name] = value.includes(",")
                ? value.split(",").map(decodeURIComponent)
                : decodeURIComponent(value);
            }
          }
        }
      }
    } catch {
      return undefined;
    }
    return out;
  }

  /** The URI for `values` (RFC 6570 expansion; undefined variables are left out). */
  expand(values: Readonly<Record<string, unknown>>): string {
    let out = "";
    for (const part of this.parts) {
      if (typeof part === "string") out += part;
      else out += expandExpression(part.op, part.vars, values);
    }
    return out;
  }
}

/** A value's pattern; with several variables in one expression, a value also stops at the comma between them. */
function valuePattern(op: string, several: boolean): string {
  return several ? VALUE[op]!.replace("]*", ",]*") : VALUE[op]!;
}

const FIRST: Readonly<Record<string, string>> = Object.freeze({
  "": "",
  "+": "",
  "#": "#",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "?",
  "&": "&",
});
const SEP: Readonly<Record<string, string>> = Object.freeze({
  "": ",",
  "+": ",",
  "#": ",",
  ".": ".",
  "/": "/",
  ";": ";",
  "?": "&",
  "&": "&",
});
/** Operators whose expansion names each variable (`name=value`). */
const isNamed = (op: string): boolean => op === ";" || op === "?" || op === "&";

/** Reserved characters (RFC 3986 gen-delims and sub-delims) as encodeURIComponent escapes them. */
const RESERVED = /%(?:21|23|24|2[6-9A-C]|2F|3[ABDF]|40|5B|5D)/gi;
/** A percent-encoded triplet already in a value, which reserved expansion passes through. */
const TRIPLET = /%[0-9A-F]{2}/gi;

/** RFC 6570 §3.2.1: `+` and `#` keep reserved characters and triplets; the others encode all but unreserved. */
function encode(value: string, op: string): string {
  if (op !== "+" && op !== "#") return encodeUnreserved(value);
  let out = "";
  let last = 0;
  for (const m of value.matchAll(TRIPLET)) {
    out +=
      encodeUnreserved(value.slice(last, m.index)).replace(RESERVED, (e) => decodeURIComponent(e)) + m[0];
    last = m.index + m[0].length;
  }
  return out + encodeUnreserved(value.slice(last)).replace(RESERVED, (e) => decodeURIComponent(e));
}

const encodeUnreserved = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

function expandExpression(
  op: string,
  vars: readonly TemplateVariable[],
  values: Readonly<Record<string, unknown>>,
): string {
  const pieces: string[] = [];
  for (const variable of vars) {
    const value = values[variable.name];
    if (value === undefined || value === null) continue;
    const named = isNamed(op);
    if (Array.isArray(value)) {
      if (value.length === 0) continue;
      const items = value.map((x) => encode(String(x), op));
      if (variable.explode) {
        pieces.push(named ? items.map((x) => `${variable.name}=${x}`).join(SEP[op]) : items.join(SEP[op]));
      } else {
        pieces.push(named ? `${variable.name}=${items.join(",")}` : items.join(","));
      }
      continue;
    }
    let text = String(value);
    if (variable.prefix !== undefined) text = [...text].slice(0, variable.prefix).join("");
    const encoded = encode(text, op);
    if (!named) pieces.push(encoded);
    else if (op === ";" && encoded === "") pieces.push(variable.name);
    else pieces.push(`${variable.name}=${encoded}`);
  }
  return pieces.length === 0 ? "" : FIRST[op] + pieces.join(SEP[op]);
}

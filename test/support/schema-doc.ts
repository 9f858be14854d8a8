/**
 * Read-only view of an MCP schema document (draft-07 `definitions` or 2020-12 `$defs`) for the
 * test instance generator: `$ref` resolution, keyword checks, type sets and recursion heights.
 */

export type Schema = boolean | SchemaObject;

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  allOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

const KEYWORDS = new Set([
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "maxItems",
  "enum",
  "const",
  "anyOf",
  "allOf",
  "oneOf",
  "patternProperties",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
]);
const ANNOTATIONS = new Set(["description", "title", "default", "examples", "deprecated", "$comment"]);

// JSON types as bits. Numbers split into integers and non-integers so that
// `number` ∩ `integer` and "a number that is not an integer" are plain bit operations.
export const T_NULL = 1;
export const T_BOOL = 2;
export const T_INT = 4;
export const T_FRAC = 8;
export const T_STR = 16;
export const T_ARR = 32;
export const T_OBJ = 64;
export const T_ALL = 127;
const T_SCALARS = T_NULL | T_BOOL | T_INT | T_FRAC | T_STR;
export const TYPE_BITS = [T_NULL, T_BOOL, T_INT, T_FRAC, T_STR, T_ARR, T_OBJ] as const;

const TYPE_NAME_BITS: Record<string, number> = {
  null: T_NULL,
  boolean: T_BOOL,
  integer: T_INT,
  number: T_INT | T_FRAC,
  string: T_STR,
  array: T_ARR,
  object: T_OBJ,
};

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Type bit of a JSON value; integer test matches ajv (`x % 1 === 0`), so 1e20 is an integer. */
export function typeBitOf(value: unknown): number {
  if (value === null) return T_NULL;
  if (typeof value === "boolean") return T_BOOL;
  if (typeof value === "number") return Number.isFinite(value) && value % 1 === 0 ? T_INT : T_FRAC;
  if (typeof value === "string") return T_STR;
  if (Array.isArray(value)) return T_ARR;
  return T_OBJ;
}

export function typeKeywordBits(type: string | string[]): number {
  const names = Array.isArray(type) ? type : [type];
  let bits = 0;
  for (const name of names) {
    const bit = TYPE_NAME_BITS[name];
    if (bit === undefined) throw new Error(`unknown JSON type "${name}"`);
    bits |= bit;
  }
  return bits;
}

export function escapePointerToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** JSON pointer of a path; the document root is written "/" so kinds always carry a location. */
export function pointerOf(path: readonly (string | number)[]): string {
  if (path.length === 0) return "/";
  return path.map((t) => `/${escapePointerToken(String(t))}`).join("");
}

/** A schema that accepts every value: `true` or an object with annotations only. */
export function acceptsEverything(schema: Schema): boolean {
  if (typeof schema === "boolean") return schema;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k));
}

export class SchemaDoc {
  readonly defsKey: "definitions" | "$defs";
  readonly defs: Record<string, Schema>;
  private readonly typeMemo = new WeakMap<object, number>();
  private readonly inProgress = new WeakSet<object>();
  private readonly checked = new WeakSet<object>();
  private heights: Map<string, number> | undefined;
  private consts: unknown[] | undefined;

  constructor(readonly root: object) {
    const doc = root as Record<string, unknown>;
    if (isPlainObject(doc.$defs)) this.defsKey = "$defs";
    else if (isPlainObject(doc.definitions)) this.defsKey = "definitions";
    else throw new Error("schema document has neither `$defs` nor `definitions`");
    this.defs = doc[this.defsKey] as Record<string, Schema>;
  }

  definitionNames(): string[] {
    return Object.keys(this.defs);
  }

  definition(name: string): Schema {
    if (!Object.hasOwn(this.defs, name)) throw new Error(`unknown definition "${name}"`);
    return this.defs[name]!;
  }

  /** Resolve a local `#/...` reference (either dialect's definitions folder, or any pointer). */
  resolve(ref: string): Schema {
    if (!ref.startsWith("#")) throw new Error(`non-local $ref "${ref}" is not supported`);
    let node: unknown = this.root;
    for (const raw of ref.slice(1).split("/").slice(1)) {
      const token = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      if (!isPlainObject(node) || !Object.hasOwn(node, token)) throw new Error(`unresolvable $ref "${ref}"`);
      node = node[token];
    }
    if (typeof node !== "boolean" && !isPlainObject(node)) throw new Error(`$ref "${ref}" is not a schema`);
    return node as Schema;
  }

  /** Throw on any keyword outside the supported set, anywhere reachable from `schema`. */
  assertSupported(schema: Schema, where: string): void {
    if (typeof schema === "boolean" || this.checked.has(schema)) return;
    this.checked.add(schema);
    for (const key of Object.keys(schema)) {
      if (!KEYWORDS.has(key) && !ANNOTATIONS.has(key)) {
        throw new Error(`unsupported keyword "${key}" at ${where}`);
      }
    }
    if (Array.isArray(schema.items)) throw new Error(`tuple \`items\` is not supported at ${where}`);
    for (const [key, child] of this.children(schema)) this.assertSupported(child, `${where}/${key}`);
    if (schema.$ref !== undefined) this.assertSupported(this.resolve(schema.$ref), schema.$ref);
  }

  private *children(s: SchemaObject): Generator<[string, Schema]> {
    for (const [k, v] of Object.entries(s.properties ?? {})) yield [`properties/${k}`, v];
    for (const [k, v] of Object.entries(s.patternProperties ?? {})) yield [`patternProperties/${k}`, v];
    if (s.additionalProperties !== undefined) yield ["additionalProperties", s.additionalProperties];
    if (s.items !== undefined) yield ["items", s.items];
    for (const key of ["anyOf", "allOf", "oneOf"] as const) {
      for (const [i, v] of (s[key] ?? []).entries()) yield [`${key}/${i}`, v];
    }
  }

  /** Every `const` value in the document, used to swap one message's method for another's. */
  constValues(): unknown[] {
    if (this.consts) return this.consts;
    const found: unknown[] = [];
    const walk = (s: Schema): void => {
      if (typeof s === "boolean") return;
      if ("const" in s) found.push(s.const);
      for (const [, child] of this.children(s)) walk(child);
    };
    for (const def of Object.values(this.defs)) walk(def);
    this.consts = found;
    return found;
  }

  /** Over-approximation of the JSON types a schema admits, as type bits. */
  typesOf(schema: Schema): number {
    if (typeof schema === "boolean") return schema ? T_ALL : 0;
    const memo = this.typeMemo.get(schema);
    if (memo !== undefined) return memo;
    // A cycle through $ref (e.g. JSONValue) cannot narrow the set further than "anything".
    if (this.inProgress.has(schema)) return T_ALL;
    this.inProgress.add(schema);
    const bits = this.computeTypes(schema);
    this.inProgress.delete(schema);
    this.typeMemo.set(schema, bits);
    return bits;
  }

  private computeTypes(s: SchemaObject): number {
    let bits = T_ALL;
    if (s.type !== undefined) bits &= typeKeywordBits(s.type);
    if ("const" in s) bits &= typeBitOf(s.const);
    if (s.enum !== undefined) bits &= s.enum.reduce<number>((acc, v) => acc | typeBitOf(v), 0);
    if (s.$ref !== undefined) bits &= this.typesOf(this.resolve(s.$ref));
    for (const sub of s.allOf ?? []) bits &= this.typesOf(sub);
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = s[key];
      if (branches) bits &= branches.reduce<number>((acc, b) => acc | this.typesOf(b), 0);
    }
    return bits;
  }

  /**
   * Smallest nesting a valid instance of `schema` needs (required properties and minItems only).
   * Used at the depth limit to pick the branch that terminates soonest. Infinity = cannot end.
   */
  heightOf(schema: Schema): number {
    return this.height(schema, this.definitionHeights());
  }

  private definitionHeights(): Map<string, number> {
    if (this.heights) return this.heights;
    const table = new Map<string, number>();
    for (const name of this.definitionNames())
      table.set(`#/${this.defsKey}/${name}`, Number.POSITIVE_INFINITY);
    // Fixed point: heights only decrease, and each pass settles at least one more level of nesting.
    for (let changed = true, pass = 0; changed && pass < 1000; pass++) {
      changed = false;
      for (const [ref, old] of table) {
        const h = this.height(this.resolve(ref), table);
        if (h < old) {
          table.set(ref, h);
          changed = true;
        }
      }
    }
    this.heights = table;
    return table;
  }

  private height(schema: Schema, table: Map<string, number>): number {
    if (typeof schema === "boolean") return schema ? 0 : Number.POSITIVE_INFINITY;
    // A position that must hold an object or array costs a level even when empty, so a
    // scalar branch (JSONValue's strings) wins over an empty container at the depth limit.
    let h = (this.typesOf(schema) & T_SCALARS) === 0 ? 1 : 0;
    if (schema.$ref !== undefined) {
      h = Math.max(h, table.get(schema.$ref) ?? this.height(this.resolve(schema.$ref), table));
    }
    for (const sub of schema.allOf ?? []) h = Math.max(h, this.height(sub, table));
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = schema[key];
      if (branches) h = Math.max(h, Math.min(...branches.map((b) => this.height(b, table))));
    }
    for (const key of schema.required ?? []) {
      h = Math.max(h, 1 + this.height(schema.properties?.[key] ?? true, table));
    }
    if ((schema.minItems ?? 0) > 0 && schema.items !== undefined) {
      h = Math.max(h, 1 + this.height(schema.items, table));
    }
    return h;
  }
}

/**
 * Applies apps-tables.ts APPS_SCHEMA_FIXES to the (hoisted) Apps schema document in place. Each fix is a
 * rule about how zod's `toJSONSchema` renders ext-apps' zod schemas; it returns the keys of the fixes that
 * changed something, so an entry that no longer matches the schema is noticed.
 */

type Node = Record<string, unknown>;

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);
/** `{}` with at most a description: zod's rendering of `undefined`. */
const isAnything = (v: unknown): boolean => isNode(v) && Object.keys(v).every((k) => k === "description");
const acceptsUndefined = (v: unknown): boolean =>
  isNode(v) && Array.isArray(v.anyOf) && v.anyOf.length > 1 && v.anyOf.some(isAnything);
const BASE64_CONTENT = new Set(["image", "audio"]);

export function applyAppsFixes(doc: Node): string[] {
  const applied = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (!isNode(node)) return;
    if (node.type === "object" && node.additionalProperties === false) {
      delete node.additionalProperties;
      applied.add("open-objects");
    }
    const props = isNode(node.properties) ? node.properties : {};
    if (Array.isArray(node.required)) {
      const required = node.required.filter((name) => {
        const schema = Object.hasOwn(props, name) ? props[name] : node.additionalProperties;
        if (acceptsUndefined(schema)) {
          applied.add("optional-undefined");
          return false;
        }
        if (isNode(schema) && "default" in schema) {
          applied.add("defaults");
          return false;
        }
        return true;
      });
      if (required.length > 0) node.required = required;
      else delete node.required;
    }
    const base64 = (
      isNode(props.type) && BASE64_CONTENT.has(props.type.const as string) ? ["data"] : []
    ).concat("blob");
    for (const key of base64) {
      const schema = props[key];
      if (isNode(schema) && schema.type === "string" && schema.format === undefined) {
        schema.format = "byte";
        applied.add("base64");
      }
    }
    for (const value of Object.values(node)) walk(value);
    // After the children: a branch list is final once what is below it is.
    if (acceptsUndefined(node)) {
      node.anyOf = (node.anyOf as unknown[]).filter((b) => !isAnything(b));
      applied.add("optional-undefined");
    }
  };
  walk(doc);
  return [...applied].sort();
}

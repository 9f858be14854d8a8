/**
 * Run as a child process (`tsx --conditions=mcp-codegen-source import-probe.ts <module>...`): imports
 * each module and prints, as one JSON line, what importing them changed in the process: `globalThis`'s
 * own keys added or removed, and the own keys of Object.prototype, Array.prototype and Function.prototype
 * that appeared, changed or were deleted. Generated code must change nothing of it. The runtime is imported before the
 * snapshot, so only the modules' own top-level code counts.
 */
import "@mcp-codegen/runtime";
import "@mcp-codegen/runtime/client";
import "@mcp-codegen/runtime/server";
import "@mcp-codegen/runtime/codegen";
import { pathToFileURL } from "node:url";

const watched = {
  globalThis,
  "Object.prototype": Object.prototype,
  "Array.prototype": Array.prototype,
  "Function.prototype": Function.prototype,
};
const snapshot = () =>
  Object.fromEntries(
    Object.entries(watched).map(([name, target]) => [
      name,
      new Map(Reflect.ownKeys(target).map((k) => [k, Object.getOwnPropertyDescriptor(target, k)])),
    ]),
  );
const before = snapshot();
/** Node sets up its fetch dispatcher on the first dynamic import under tsx: not the modules' doing. */
const NODE_OWN = (key: string | symbol) => typeof key === "symbol" && /^undici\./.test(key.description ?? "");
const failed: string[] = [];
for (const module of process.argv.slice(2)) {
  try {
    await import(pathToFileURL(module).href);
  } catch (e) {
    failed.push(`${module}: ${(e as Error).message}`);
  }
}
const after = snapshot();
const changed: string[] = [];
for (const [name, keys] of Object.entries(after)) {
  // Keys from before too: a member the import deleted is a change.
  for (const key of new Set([...before[name]!.keys(), ...keys.keys()])) {
    const old = before[name]!.get(key);
    const descriptor = keys.get(key);
    const same =
      old !== undefined &&
      descriptor !== undefined &&
      Object.is(old.value, descriptor.value) &&
      old.get === descriptor.get &&
      old.set === descriptor.set;
    if (!same && !NODE_OWN(key)) changed.push(`${name}.${String(key)}`);
  }
}
process.stdout.write(`${JSON.stringify({ changed, failed })}\n`);

/**
 * A contract's plain validators, compiled in memory: the very `validators.ts` the generator emits for
 * the contract, transpiled to JavaScript and imported, so what `mcp-codegen test` holds a server to is
 * exactly what a generated contract server checks, not a second interpretation of the schemas.
 */

import * as codegen from "@mcp-codegen/runtime/codegen";
import { emitValidators } from "../emit/validators.js";
import type { DefinitionModel } from "../protocol/model.js";
import { checkName } from "../protocol/naming.js";
import { type CompiledMemo, transpile } from "./transpile.js";

/** `{ path, message }` of the first failure, the others in `more`, as the runtime's checks return it. */
export interface CheckFailure {
  path: (string | number)[];
  message: string;
  more?: CheckFailure[];
}

export type CheckFn = (value: unknown) => CheckFailure | undefined;

const RUNTIME_CODEGEN = "@mcp-codegen/runtime/codegen";

/**
 * One check per definition, by definition name (`AddInput` → the emitted `checkAddInput`); `compiled`
 * holds JavaScript compiled earlier (`transpile.ts`).
 */
export function compileChecks(definitions: DefinitionModel[], compiled?: CompiledMemo): Map<string, CheckFn> {
  const checks = new Map<string, CheckFn>();
  if (definitions.length === 0) return checks;
  const source = emitValidators({ definitions, methods: [] })["validators.ts"]!;
  // CommonJS, so the one import is a `require` this function answers: no module to write or resolve.
  const js = transpile(source, "cjs", compiled);
  const require = (id: string): unknown => {
    if (id === RUNTIME_CODEGEN) return codegen;
    throw new Error(`emitted validators import ${id}, not only ${RUNTIME_CODEGEN}`);
  };
  const exports: Record<string, CheckFn> = {};
  new Function("require", "exports", js)(require, exports);
  for (const def of definitions) {
    const fn = exports[checkName(def.name)];
    if (typeof fn !== "function") throw new Error(`emitted validators lack ${checkName(def.name)}`);
    checks.set(def.name, fn);
  }
  return checks;
}

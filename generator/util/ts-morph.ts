/**
 * ts-morph and the TypeScript compiler it bundles, loaded with `require`: imported as an ES module,
 * Node would first scan its megabyte of CommonJS for export names, a cost paid on every `generate` that
 * compiles something. Types come from `import type … from "ts-morph"`, which loads nothing.
 */

import { createRequire } from "node:module";
import type * as TsMorph from "ts-morph";

const morph = createRequire(import.meta.url)("ts-morph") as typeof TsMorph;

export const Node: typeof TsMorph.Node = morph.Node;
export const Project: typeof TsMorph.Project = morph.Project;
export const ts: typeof TsMorph.ts = morph.ts;

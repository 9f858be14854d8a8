#!/usr/bin/env node
// The installed package runs its compiled dist/. A clone that has not run `npm run build` has no dist/:
// it runs the TypeScript sources through tsx (a devDependency), resolving @mcp-codegen/runtime to its
// sources the way the repository's scripts do (the mcp-codegen-source condition).
import { existsSync } from "node:fs";
import * as nodeModule from "node:module";

// V8's compiled code kept on disk between runs (Node >= 22.1; the TypeScript compiler is 9 MB of it).
// Through the namespace: a named import of it would not even load on an older Node.
nodeModule.enableCompileCache?.();

const dist = new URL("../dist/generator/cli/index.js", import.meta.url);
const source = new URL("../generator/cli/index.ts", import.meta.url);

async function sourceCli() {
  let tsx;
  try {
    tsx = await import("tsx/esm/api");
  } catch {
    process.stderr.write(
      "mcp-codegen: dist/ is missing (not built) and tsx is not installed to run the sources: run `npm install` then `npm run build` in the mcp-codegen checkout\n",
    );
    process.exit(1);
  }
  tsx.register();
  nodeModule.register(
    `data:text/javascript,${encodeURIComponent(
      'export const resolve = (s, c, next) => next(s, { ...c, conditions: [...c.conditions, "mcp-codegen-source"] });',
    )}`,
  );
  return import(source.href);
}

const { run } = existsSync(dist) ? await import(dist.href) : await sourceCli();
await run(process.argv);

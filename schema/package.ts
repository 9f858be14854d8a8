/** Where this package's files are, found by name so it works from the sources and from dist/. */

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_NAME = "mcp-codegen";

function findRoot(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (pkg.name === PACKAGE_NAME && typeof pkg.version === "string")
        return { root: dir, version: pkg.version };
    } catch {
      // No package.json here, or not ours: keep looking.
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`cannot find the ${PACKAGE_NAME} package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
}

const found = findRoot();

/** The folder holding this package's package.json. */
export const PACKAGE_ROOT: string = found.root;
/** This package's version, named in every generated file's header. */
export const PACKAGE_VERSION: string = found.version;

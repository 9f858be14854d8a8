/**
 * Type-checks a folder of generated or hand-written TypeScript under test/.tmp with the project's own
 * compiler and settings, and returns the error lines. A canary file with one deliberate error proves tsc
 * really read the folder (the root tsconfig excludes test/.tmp, which is easy to inherit by accident).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/**
 * `tsc -p` over `include` (paths relative to `dir`, a folder under test/.tmp); every `error TS` line but the
 * canary's, which must be there exactly once.
 */
export function typeErrors(dir: string, include: string[], compilerOptions: object = {}): string[] {
  const root = relative(dir, REPO).replaceAll("\\", "/");
  writeFileSync(
    `${dir}/tsconfig.json`,
    JSON.stringify({
      extends: `${root}/tsconfig.json`,
      compilerOptions: { noEmit: true, noUnusedLocals: false, ...compilerOptions },
      include: [...include, "./canary.ts"],
      exclude: [],
    }),
  );
  writeFileSync(`${dir}/canary.ts`, "export const canary: string = 1;\n");
  let output = "";
  try {
    execFileSync(`${REPO}node_modules/.bin/tsc`, ["-p", `${dir}/tsconfig.json`], { encoding: "utf8" });
  } catch (e) {
    output = String((e as { stdout?: string }).stdout ?? e);
  }
  const errors = output.split("\n").filter((l) => l.includes("error TS"));
  const canary = errors.filter((l) => l.includes("canary.ts"));
  if (canary.length !== 1)
    throw new Error(`tsc did not check ${dir} (canary errors: ${canary.length})\n${output}`);
  return errors.filter((l) => !l.includes("canary.ts"));
}

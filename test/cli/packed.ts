/**
 * A new user's machine, for the tests that go through the packed packages (`npm pack`, `init` from the
 * tarballs through npx, `npm install` offline): a temporary folder, and an environment with no schema
 * anywhere but in the package (no MCP_SCHEMA_DIR, an empty cache, a download refused on port 9), so the
 * tarball's bundled copies must suffice. Packing itself finds the schemas as this checkout's tests do.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./run.js";

export function packedWorkspace(prefix: string) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const packs = join(work, "packs");
  const packEnv = { ...process.env, PATH: `${REPO}node_modules/.bin:${process.env.PATH}` };
  const env = {
    ...packEnv,
    MCP_SCHEMA_DIR: "",
    MCP_CODEGEN_CACHE_DIR: join(work, "empty-cache"),
    MCP_CODEGEN_BUNDLED_DIR: "",
    MCP_CODEGEN_UPSTREAM: "http://127.0.0.1:9/",
  };
  const run = (cmd: string, args: string[], cwd: string, runEnv: NodeJS.ProcessEnv = env) => {
    const r = spawnSync(cmd, args, { cwd, env: runEnv, encoding: "utf8", timeout: 180_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const must = (cmd: string, args: string[], cwd: string, runEnv: NodeJS.ProcessEnv = env) => {
    const r = run(cmd, args, cwd, runEnv);
    if (r.code !== 0)
      throw new Error(`${cmd} ${args.join(" ")} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  /**
   * Packs the packages into `packs` (the Redis one too: an HTTP scaffold's development dependency, which
   * `init --from-tarballs` points at when it is there); returns the two tarballs `npx` runs.
   */
  const pack = () => {
    mkdirSync(packs);
    must("npm", ["pack", "--pack-destination", packs], REPO, packEnv);
    must("npm", ["pack", "-w", "@mcp-codegen/runtime", "--pack-destination", packs], REPO, packEnv);
    must("npm", ["pack", "-w", "@mcp-codegen/redis", "--pack-destination", packs], REPO, packEnv);
    return {
      tarball: join(packs, readdirSync(packs).find((f) => /^mcp-codegen-\d/.test(f))!),
      runtimeTarball: join(packs, readdirSync(packs).find((f) => /^mcp-codegen-runtime-\d/.test(f))!),
    };
  };
  /** `npx --package <runtime.tgz> --package <codegen.tgz> mcp-codegen init … --from-tarballs <packs>`. */
  const initArgs = (packed: { tarball: string; runtimeTarball: string }, args: string[]) =>
    ["--yes", "--prefer-offline", "--package", packed.runtimeTarball, "--package", packed.tarball].concat(
      ["mcp-codegen", "init"],
      args,
      ["--from-tarballs", packs],
    );
  return { work, packs, packEnv, env, run, must, pack, initArgs };
}

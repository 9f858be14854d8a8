/**
 * `mcp-codegen dev`: the edit loop of a server project. Watches the project; a contract edit regenerates
 * its contract in-process, any edit type-checks (tsc in a child) and bundles (esbuild, incremental) at
 * once; only code that passes both replaces the running server, so a type error is printed and the last
 * good server keeps serving. Over HTTP, dev owns the public port and forwards to the server child of the
 * moment; the next child starts beside the old one and takes over when ready, so clients see their
 * session end (404, then a new session), never a refused connection. Over stdio, dev keeps a bundle the
 * MCP Inspector runs (the command is printed; `--inspector` starts it).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, relative, sep } from "node:path";
import { INSPECTOR_ORIGINS, originList } from "@mcp-codegen/runtime/http";
import { createBundler } from "../dev/bundle.js";
import { type DevProxy, PortInUseError, startProxy } from "../dev/proxy.js";
import { freePort, type ServerProcess, startServer } from "../dev/server-process.js";
import { findTsc, typeCheck } from "../dev/typecheck.js";
import { watchProject } from "../dev/watch.js";
import { CONFIG_FILE, type ProjectConfig, readConfig } from "../project/project.js";
import { counted } from "./counted.js";
import { createRegenerator } from "./dev-generate.js";
import { CliError, EXIT } from "./errors.js";
import { isInputError } from "./input-errors.js";
import type { Reporter } from "./report.js";

export interface DevOptions {
  entry: string;
  port?: string;
  transport?: string;
  inspector?: boolean;
  allowInspector?: boolean;
}

/** Type errors printed per check; the count says how many more there are. */
const SHOWN_ERRORS = 20;

/** Module resolution conditions dev itself runs under (`--conditions`, `-C`), applied to the server too. */
export function conditionsOf(execArgv: readonly string[], nodeOptions = ""): string[] {
  const args = [...execArgv, ...nodeOptions.split(/\s+/).filter(Boolean)];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const m = /^(?:--conditions|-C)(?:=(.*))?$/.exec(args[i]!);
    if (!m) continue;
    const value = m[1] ?? args[++i];
    if (value) out.push(value);
  }
  return out;
}

/** What an edited file asks for: recompiling the contract, rebuilding the code, or nothing. */
export function changeKind(rel: string): "config" | "contract" | "code" | undefined {
  const name = rel.split(sep).at(-1) ?? rel;
  if (rel === CONFIG_FILE) return "config";
  if (/^(tsconfig.*|package(-lock)?)\.json$/.test(name)) return "code";
  const ext = extname(name);
  if ([".json", ".yaml", ".yml"].includes(ext)) return "contract";
  if ([".ts", ".tsx", ".mts", ".cts", ".js", ".mjs", ".cjs"].includes(ext)) return "code";
  return undefined;
}

/**
 * Whether `path` (absolute) is, or lies below, something the contract read: a file (a `$ref`'d schema,
 * a skill's file) or a folder it listed (a skills folder, where a new file is a new skill file).
 */
export function readByContract(path: string, read: ReadonlySet<string>): boolean {
  for (let at = path; ; at = dirname(at)) {
    if (read.has(at)) return true;
    if (dirname(at) === at) return false;
  }
}

/**
 * The server child's MCP_CORS_ORIGINS (which the scaffold's entry passes to serveHttp as `cors`): the
 * value dev runs under, with the MCP Inspector's origins added for `--allow-inspector`.
 */
export function corsOrigins(current: string | undefined, allowInspector: boolean): string | undefined {
  if (!allowInspector) return current;
  const origins = originList(current);
  for (const origin of INSPECTOR_ORIGINS) if (!origins.includes(origin)) origins.push(origin);
  return origins.join(",");
}

/** The `npx @modelcontextprotocol/inspector` command line that runs a stdio server's bundle. */
export function inspectorCommand(nodeFlags: readonly string[], main: string): string[] {
  return ["npx", "@modelcontextprotocol/inspector", "node", ...nodeFlags, main];
}

export async function runDev(opts: DevOptions, report: Reporter): Promise<number> {
  const root = process.cwd();
  let config: ProjectConfig | undefined = await readConfig(root);
  if (!config)
    throw new CliError(
      `no ${CONFIG_FILE} here: run \`mcp-codegen dev\` in a project (see \`mcp-codegen init\`)`,
    );
  if (config.kind !== "server") throw new CliError("`dev` runs a server project; this one is a client");
  const entry = join(root, opts.entry);
  if (!existsSync(entry))
    throw new CliError(`${opts.entry}: the server's entry is not there; pass --entry <file>`);
  const source = await readFile(entry, "utf8");
  const transport = opts.transport ?? (source.includes("serveHttp") ? "http" : "stdio");
  if (transport !== "http" && transport !== "stdio")
    throw new CliError(`--transport must be http or stdio (got "${transport}")`);
  const publicPort = Number(opts.port ?? process.env.PORT ?? 3000);
  if (!Number.isInteger(publicPort) || publicPort < 0 || publicPort > 65535)
    throw new CliError(`--port must be a port number (got "${opts.port}")`);

  const conditions = conditionsOf(process.execArgv, process.env.NODE_OPTIONS);
  const nodeFlags = ["--enable-source-maps", ...conditions.map((c) => `--conditions=${c}`)];
  const outDir = join(root, "dist", "dev");
  // A missing typescript or esbuild is the project's to install: one line, exit 2.
  const setup = async <T>(make: () => T | Promise<T>): Promise<T> => {
    try {
      return await make();
    } catch (e) {
      throw new CliError((e as Error).message);
    }
  };
  const tsc = await setup(() => findTsc(root));
  let regenerate = createRegenerator(root, config);
  const cors = corsOrigins(process.env.MCP_CORS_ORIGINS, opts.allowInspector === true);
  const serverEnv: Record<string, string> = cors === undefined ? {} : { MCP_CORS_ORIGINS: cors };
  // A `--http [port]` switch in the entry (the "both" scaffold) selects HTTP; PORT is set as well.
  const httpArgs = (port: number) => (source.includes('"--http"') ? ["--http", String(port)] : []);

  let proxy: DevProxy | undefined;
  let current: (ServerProcess & { slot: string }) | undefined;
  let inspector: ChildProcess | undefined;
  let stopping = false;
  /** Old servers still finishing their calls in flight. */
  const retiring = new Set<Promise<void>>();
  if (transport === "http") {
    proxy = await startProxy({ port: publicPort }).catch((e: unknown) => {
      throw e instanceof PortInUseError ? new CliError(e.message) : e;
    });
    report.info(`dev: MCP over Streamable HTTP at ${proxy.origin}/mcp (kept up across restarts)`);
    if (opts.allowInspector)
      report.info(
        `dev: --allow-inspector: pages on ${INSPECTOR_ORIGINS.join(" and ")} may call the server (MCP_CORS_ORIGINS=${cors})`,
      );
  }
  // esbuild's service keeps the process alive: created once the port is ours, closed on any way out.
  const bundler = await setup(() => createBundler(root, entry, outDir, conditions)).catch(
    async (e: unknown) => {
      await proxy?.close();
      throw e;
    },
  );

  const kept = () =>
    transport === "stdio"
      ? "the bundle is left as it was"
      : current
        ? "still serving the last good server"
        : "no server yet";

  /** What the last contract compile read: an edit there (a skill's file) regenerates as a contract edit does. */
  let contractRead = new Set<string>();
  /** One pass: regenerate when the contract changed, then check, bundle and (if both pass) swap in. */
  const cycle = async (contract: boolean, signal: AbortSignal) => {
    const started = performance.now();
    if (contract) {
      const read = new Set<string>();
      try {
        const result = await regenerate(read);
        contractRead = read;
        for (const path of result.written) await watcher?.remember(path);
        for (const w of result.warnings) report.notice(`warning: ${w}`);
        if (result.stubs.length > 0)
          report.info(`dev: ${config!.handlers}: stubs added for ${result.stubs.join(", ")}`);
      } catch (e) {
        // A failed compile keeps what the last good one read too, so fixing that file regenerates.
        contractRead = new Set([...contractRead, ...read]);
        if (!isInputError(e)) throw e;
        report.error(`${e.message}`);
        report.info(`dev: generation failed; ${kept()}`);
        return;
      }
    }
    const generated = performance.now();
    const check = typeCheck(root, { tsc, cacheDir: outDir, conditions, signal });
    let checkedAt = 0;
    void check.then(() => {
      checkedAt = performance.now();
    });
    let readyAt = 0;
    let staged: (ServerProcess & { slot: string }) | undefined;
    let failure: string[] | undefined;
    const slot = current?.slot === "a" ? "b" : "a";
    try {
      const bundle = await bundler.build();
      if (transport === "http") {
        const main = await bundler.write(bundle, slot);
        const port = await freePort();
        staged = {
          ...(await startServer({
            main,
            args: httpArgs(port),
            nodeFlags,
            cwd: root,
            port,
            env: serverEnv,
            // The server announces its internal address; clients want dev's.
            onStderr: (line) =>
              process.stderr.write(`${line.replaceAll(`127.0.0.1:${port}`, `127.0.0.1:${proxy!.port}`)}\n`),
          })),
          slot,
        };
        readyAt = performance.now();
      } else {
        // Written only once the check passes: the Inspector must never start code that does not type-check.
        const checked = await check;
        if (checked.ok) await bundler.write(bundle, "server");
      }
    } catch (e) {
      failure = (e as { errors?: string[] }).errors ?? [(e as Error).message];
    }
    const checked = await check;
    // A newer edit came in: this pass's result is already stale, the next pass starts at once.
    if (checked.cancelled || signal.aborted) {
      await staged?.stop(0);
      return;
    }
    if (!checked.ok || failure) {
      await staged?.stop(0);
      for (const line of checked.errors.slice(0, SHOWN_ERRORS)) report.error(line);
      if (checked.errors.length > SHOWN_ERRORS)
        report.error(`… and ${counted(checked.errors.length - SHOWN_ERRORS, "more type error")}`);
      for (const line of failure ?? []) report.error(line);
      const what = checked.ok ? "the server did not start" : counted(checked.errors.length, "type error");
      report.info(`dev: ${what}; ${kept()}`);
      return;
    }
    const ms = Math.round(performance.now() - started);
    if (transport === "stdio") {
      report.info(`dev: bundle ready in ${ms} ms; restart the server in the Inspector to load it`);
      return;
    }
    const next = staged!;
    const previous = current;
    current = next;
    proxy!.setTarget(next.port);
    void next.exited.then((how) => {
      if (current !== next || stopping) return;
      current = undefined;
      proxy?.setTarget(undefined);
      report.info(`dev: the server exited (${how}); save a file to start it again`);
    });
    const phase = (at: number) => Math.round(at - generated);
    report.info(
      `dev: ${previous ? "restarted" : "started"} the server in ${ms} ms (${contract ? `generate ${Math.round(generated - started)} ms, ` : ""}type check ${phase(checkedAt)} ms, bundle and start ${phase(readyAt)} ms, side by side)`,
    );
    // Not awaited: the old server may take its grace period over calls in flight, and the next edit
    // should not wait for it.
    if (previous) {
      const stopped = previous.stop().finally(() => retiring.delete(stopped));
      retiring.add(stopped);
    }
  };

  // Edits while a pass runs are folded into the next one.
  let running: Promise<void> | undefined;
  let passing: AbortController | undefined;
  let pending: { contract: boolean } | undefined;
  const schedule = (contract: boolean) => {
    pending = { contract: contract || (pending?.contract ?? false) };
    if (running) {
      passing?.abort();
      return;
    }
    running = (async () => {
      while (pending) {
        const next = pending;
        pending = undefined;
        passing = new AbortController();
        await cycle(next.contract, passing.signal).catch((e: unknown) =>
          report.error(`dev: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
        );
      }
      running = undefined;
    })();
  };

  const watcher = await watchProject(
    root,
    { skip: ["node_modules", "dist", config.output.split(/[\\/]/)[0]!] },
    (paths) => {
      const kinds = new Set(
        paths.map((p) => (readByContract(p, contractRead) ? "contract" : changeKind(relative(root, p)))),
      );
      if (kinds.has("config")) {
        void readConfig(root).then(
          (next) => {
            if (!next) return;
            // After `generate --protocol`, or an edit by hand (then tsc shows what the handlers lack).
            if (next.protocol !== config!.protocol)
              report.info(`dev: ${CONFIG_FILE}: protocol ${config!.protocol} → ${next.protocol}`);
            config = next;
            regenerate = createRegenerator(root, next);
            schedule(true);
          },
          (e: Error) => report.error(e.message),
        );
        return;
      }
      if (kinds.has("contract")) schedule(true);
      else if (kinds.has("code")) schedule(false);
    },
  );
  report.info(`dev: watching ${root} (Ctrl-C to stop)`);
  schedule(true);

  if (transport === "stdio") {
    const command = inspectorCommand(nodeFlags, relative(root, join(outDir, "server", "main.js")));
    report.info(`dev: attach the MCP Inspector with: ${command.join(" ")}`);
    if (opts.inspector) inspector = spawn(command[0]!, command.slice(1), { cwd: root, stdio: "inherit" });
    if (opts.allowInspector)
      report.info("dev: --allow-inspector is for HTTP servers (stdio has no origins); ignored");
  } else if (opts.inspector) {
    report.info(
      `dev: --inspector starts the Inspector for stdio servers; for HTTP, open it and connect to ${proxy!.origin}/mcp${opts.allowInspector ? "" : " (a direct connection from its web UI needs --allow-inspector)"}`,
    );
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  stopping = true;
  watcher.close();
  pending = undefined;
  passing?.abort();
  while (running) await running;
  inspector?.kill("SIGTERM");
  await Promise.all([current?.stop(), ...retiring]);
  await proxy?.close();
  await bundler.dispose();
  return EXIT.ok;
}

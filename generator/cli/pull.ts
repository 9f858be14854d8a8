import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ContractError } from "../contract/load.js";
import { compareLocks, renderComparison } from "../lock/compat.js";
import { emitContractClient } from "../lock/emit-client.js";
import { contractFromLock } from "../lock/from-lock.js";
import { buildLock, type ContractLock, parseLock, renderLock } from "../lock/lock.js";
import { writeFileAtomic, writeOutput } from "../output/write.js";
import { visible } from "../protocol/escape.js";
import { counted } from "./counted.js";
import { CliError, EXIT } from "./errors.js";
import { type PullTarget, pullLists } from "./pull-connect.js";
import type { PullLogin } from "./pull-login.js";
import { type Reporter, terminal } from "./report.js";

export interface PullOptions {
  name?: string;
  out: string;
  header: string[];
  bearer?: string;
  check?: boolean;
  lock?: string;
  format: "text" | "json";
  timeout: string;
  /** false with --no-resources. */
  resources: boolean;
  /** false with --no-login. */
  login: boolean;
  /** Seconds. */
  loginTimeout: string;
  open?: boolean;
  tokenStore?: string;
}

/** A lock file, or a CliError saying why it cannot be read. */
async function parseLockFile(path: string): Promise<ContractLock> {
  try {
    return parseLock(await readFile(path, "utf8"), path);
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw new CliError(
      `cannot read the lock ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
}

/** `Name: value` → [name, value]; the value never appears in a message (it may be a secret). */
function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(":");
  const name = colon > 0 ? text.slice(0, colon).trim() : "";
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new CliError(`--header needs "Name: value" (got a header without a valid name)`);
  return [name, text.slice(colon + 1).trim()];
}

/** CI=true, CI=1, …: a machine where nobody would open the login URL. */
const onCi = () => {
  const ci = process.env.CI?.toLowerCase();
  return ci !== undefined && ci !== "" && ci !== "0" && ci !== "false";
};

/** How to log in if the server asks: where tokens are kept, how long to wait, or why not to log in now. */
async function loginOf(opts: PullOptions): Promise<PullLogin> {
  const seconds = Number(opts.loginTimeout);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new CliError(`--login-timeout must be a positive number of seconds, got ${opts.loginTimeout}`);
  const refusal = opts.check
    ? "--check never starts a login"
    : !opts.login
      ? "--no-login is set"
      : onCi()
        ? "CI is set (nobody is there to open the URL)"
        : undefined;
  const { defaultTokenFilePath } = await import("@mcp-codegen/runtime/node");
  return {
    tokenFile: opts.tokenStore || process.env.MCP_CODEGEN_TOKEN_FILE || defaultTokenFilePath(),
    timeoutMs: Math.round(seconds * 1000),
    open: opts.open === true,
    ...(refusal !== undefined && { refusal }),
  };
}

/** The target on the command line: one URL, or a command and its arguments. */
async function targetOf(args: string[], opts: PullOptions): Promise<PullTarget> {
  const [first, ...rest] = args;
  if (!first) throw new CliError("give the server's URL, or -- and the command that starts it");
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new CliError(`--timeout must be a positive number of milliseconds, got ${opts.timeout}`);
  if (/^https?:\/\//i.test(first)) {
    if (rest.length > 0) throw new CliError(`unexpected arguments after the URL: ${rest.join(" ")}`);
    let url: URL;
    try {
      url = new URL(first);
    } catch {
      throw new CliError(`not a URL: ${first}`);
    }
    const headers: Record<string, string> = {};
    for (const h of opts.header) {
      const [name, value] = parseHeader(h);
      headers[name] = value;
    }
    const bearer = opts.bearer ?? process.env.MCP_BEARER_TOKEN;
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    // A credential of the user's own is sent as given: no login on top of it.
    const ownCredential = Object.keys(headers).some((n) => n.toLowerCase() === "authorization");
    return { kind: "http", url, headers, timeoutMs, ...(!ownCredential && { login: await loginOf(opts) }) };
  }
  if (opts.header.length > 0 || opts.bearer) throw new CliError("--header and --bearer apply to a URL only");
  if (opts.tokenStore !== undefined || opts.open)
    throw new CliError("--token-store and --open apply to a URL only");
  return { kind: "stdio", command: first, args: rest, timeoutMs };
}

/** A server's name as a file name: letters, digits, `.`, `_`, `-`; anything else becomes `-`. */
export function fileSafe(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(0, 100);
  return safe || "server";
}

export async function runPull(args: string[], opts: PullOptions, report: Reporter): Promise<number> {
  const target = await targetOf(args, opts);
  if (opts.name !== undefined && fileSafe(opts.name) !== opts.name)
    throw new CliError(
      `--name must be a file name of letters, digits, ".", "_" and "-" (got "${opts.name}")`,
    );
  const step = report.step(
    target.kind === "http"
      ? `pulling ${target.url.origin}${target.url.pathname}`
      : `pulling from ${target.command}`,
  );
  const skipResources = opts.resources === false;
  const pulled = await pullLists(target, { resources: !skipResources, say: (line) => report.notice(line) });
  const { lock, warnings } = buildLock(pulled, skipResources ? ["resources"] : []);
  const name = opts.name ?? fileSafe(lock.server.name);
  step.done(
    `${visible(lock.server.name)} ${visible(lock.server.version)} (protocol ${lock.protocolVersion}${pulled.transport ? `, ${pulled.transport}` : ""}): ${counted(lock.tools.length, "tool")}, ${counted(lock.prompts.length, "prompt")}, ${counted(lock.resources.length, "resource")}, ${counted(lock.resourceTemplates.length, "resource template")}${lock.skills ? `, ${counted(lock.skills.length, "skill")}` : ""}`,
  );
  for (const w of [...pulled.warnings, ...warnings]) report.info(`warning: ${w}`);
  const lockFile = `${name}.lock.json`;

  if (opts.check) {
    const path = opts.lock ?? join(opts.out, lockFile);
    const locked = await parseLockFile(path);
    // A lock made with --no-resources leaves them out of its check too, and --no-resources leaves out the lock's.
    const leaveOut = skipResources || locked.without?.includes("resources") === true;
    const comparable = (l: ContractLock): ContractLock => (leaveOut ? { ...l, resources: [] } : l);
    const comparison = compareLocks(comparable(locked), comparable(lock));
    process.stdout.write(
      terminal(
        opts.format === "json"
          ? `${JSON.stringify({ lock: path, matches: comparison.breaking === 0, ...comparison }, null, 2)}\n`
          : renderComparison(comparison),
      ),
    );
    return comparison.breaking > 0 ? EXIT.failure : EXIT.ok;
  }

  let contract: ReturnType<typeof contractFromLock>;
  try {
    contract = contractFromLock(lock, lockFile);
  } catch (e) {
    if (e instanceof ContractError) throw new CliError(e.message);
    throw e;
  }
  for (const w of contract.warnings) report.info(`warning: ${w}`);
  const files = await emitContractClient({ lock, lockFile, model: contract.model, loose: contract.loose });
  // The lock alone: writeOutput would tidy the whole of --out, which may hold other servers' clients.
  await writeFileAtomic(join(opts.out, lockFile), renderLock(lock));
  const written = await writeOutput(join(opts.out, name), files);
  report.info(
    `wrote ${join(opts.out, lockFile)} and ${join(opts.out, name)}/ (${written.length} of ${counted(Object.keys(files).length, "file")} changed)`,
  );
  return EXIT.ok;
}

/**
 * `pull`'s connection: this project's own generated 2026-07-28 client (a stateless-era server answers its
 * `server/discover`; any older one gets the initialize handshake, negotiated down) over the runtime's transports, Streamable HTTP falling back to legacy SSE (`connectHttp`) or a
 * spawned stdio server, reading each list the server's capabilities offer, every page of it (skills too, when
 * it declares the Skills extension: entries only, no file). A server that
 * answers 401 gets the login of `pull-login.ts` first. Whatever goes
 * wrong (unreachable, not found, crashed, malformed) becomes one CliError (exit 2) saying where.
 */

import { ErrorCode, McpError } from "@mcp-codegen/runtime";
import type { PulledLists } from "../lock/lock.js";
import { GENERATOR_VERSION } from "../util/version.js";
import { CliError } from "./errors.js";
import { allPages, type Page } from "./list-pages.js";
import { lenientTables } from "./pull-lists.js";
import { type LoggedIn, logIn, type PullLogin } from "./pull-login.js";

export type PullTarget =
  | {
      kind: "http";
      url: URL;
      headers: Record<string, string>;
      timeoutMs: number;
      /** Log in when the server asks for a token (absent when the user gave an Authorization header). */
      login?: PullLogin;
    }
  | { kind: "stdio"; command: string; args: string[]; timeoutMs: number };

/** How much of a stdio server's stderr a crash report quotes. */
const STDERR_TAIL = 2000;

export interface PullListsOptions {
  /** false: fixed resources are not listed (templates still are). */
  resources: boolean;
  /** Prints what the user must see (the login URL). */
  say?: (line: string) => void;
}

export async function pullLists(
  target: PullTarget,
  options: PullListsOptions = { resources: true },
): Promise<PulledLists & { transport?: string; warnings: string[] }> {
  // Loaded on use: the other commands never need the client.
  const { protocol } = await import("../../generated/2026-07-28/protocol.js");
  const { Client, SKILLS_EXTENSION, SKILLS_LIST } = await import("@mcp-codegen/runtime/client");
  const warnings: string[] = [];
  const client = new Client(lenientTables(protocol, warnings), {
    info: { name: "mcp-codegen-pull", version: GENERATOR_VERSION },
    requestTimeoutMs: target.timeoutMs,
    // A skill entry left out of the listing (malformed, over the limits) is a warning of the pull.
    onError: (e) => {
      if (e instanceof Error && e.message.startsWith(`${SKILLS_LIST}:`)) warnings.push(e.message);
    },
  });
  const request = (method: string) => (params: { cursor?: string }) =>
    client.request(method, params as never) as Promise<unknown>;
  let stderr = "";
  let where = "connecting";
  const secrets = target.kind === "http" ? Object.values(target.headers).filter((v) => v.length >= 4) : [];
  const redact = (text: string) => secrets.reduce((t, s) => t.replaceAll(s, "***"), text);
  let loggedIn: LoggedIn | undefined;
  if (target.kind === "http" && target.login) {
    where = "logging in";
    try {
      loggedIn = await logIn(
        target.url,
        target.headers,
        target.login,
        target.timeoutMs,
        options.say ?? (() => {}),
      );
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(
        redact(
          `cannot pull from ${target.url.origin}${target.url.pathname} while logging in (it answered 401; --bearer or -H "Authorization: …" give a token of your own instead): ${(e as Error).message ?? String(e)}`,
        ),
      );
    }
    where = "connecting";
  }
  let transport: Awaited<ReturnType<typeof openTransport>>;
  try {
    transport = await openTransport(target, loggedIn, (chunk) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
  } catch (e) {
    await loggedIn?.close();
    throw new CliError(redact(`cannot start the server: ${(e as Error).message}`));
  }
  let exited = false;
  try {
    const description = await client.connect(transport);
    transport.onclose = chain(transport.onclose, () => {
      exited = true;
    });
    const caps = description.capabilities as Record<string, unknown>;
    const all = (method: string, list: (params: { cursor?: string }) => Promise<unknown>, key: string) =>
      allPages(method, key, list as (params: { cursor?: string }) => Promise<Page>, (page) => {
        where = `${method}${page > 1 ? ` (page ${page})` : ""}`;
      });
    const tools = caps.tools ? await all("tools/list", request("tools/list"), "tools") : [];
    const prompts = caps.prompts ? await all("prompts/list", request("prompts/list"), "prompts") : [];
    const resources =
      caps.resources && options.resources
        ? await all("resources/list", request("resources/list"), "resources")
        : [];
    // The `resources` capability covers templates too, but a server without any often leaves the
    // method out: "Method not found" there means no templates, not a broken server.
    const resourceTemplates = caps.resources
      ? await all("resources/templates/list", request("resources/templates/list"), "resourceTemplates").catch(
          (e: unknown) => {
            if (e instanceof McpError && e.code === ErrorCode.MethodNotFound) return [];
            throw e;
          },
        )
      : [];
    // Skills are listed, never loaded: the lock keeps each entry (its digests stand for the files).
    const extensions = caps.extensions as Record<string, unknown> | undefined;
    where = SKILLS_LIST;
    const skills =
      extensions && typeof extensions[SKILLS_EXTENSION] === "object"
        ? await client.listSkills().catch((e: unknown) => {
            // As with templates: a declared extension whose method is missing records no skills.
            if (!(e instanceof McpError && e.code === ErrorCode.MethodNotFound)) throw e;
            warnings.push(
              `the server declares ${SKILLS_EXTENSION} but answers ${SKILLS_LIST}: ${e.message}; no skills recorded`,
            );
            return undefined;
          })
        : undefined;
    return {
      ...(skills ? { skills } : {}),
      server: { name: description.serverInfo.name, version: description.serverInfo.version },
      protocolVersion: description.protocolVersion,
      tools,
      prompts,
      resources,
      resourceTemplates,
      warnings,
      ...("kind" in transport && transport.kind ? { transport: transport.kind } : {}),
    };
  } catch (e) {
    if (e instanceof CliError) throw e;
    const reason = (e as Error).message ?? String(e);
    const target_ =
      target.kind === "http"
        ? `${target.url.origin}${target.url.pathname}`
        : `the server (${target.command})`;
    const crashed = target.kind === "stdio" && exited ? " (the server exited)" : "";
    const tail = stderr.trim() ? `\nthe server's stderr ended with:\n${stderr.trim()}` : "";
    throw new CliError(redact(`cannot pull from ${target_} while ${where}${crashed}: ${reason}${tail}`));
  } finally {
    await client.close().catch(() => {});
    await loggedIn?.close();
  }
}

const chain = (first: (() => void) | undefined, then: () => void) => (): void => {
  first?.();
  then();
};

async function openTransport(
  target: PullTarget,
  loggedIn: LoggedIn | undefined,
  onStderr: (chunk: string) => void,
) {
  if (target.kind === "http") {
    const { connectHttp } = await import("@mcp-codegen/runtime/http-client");
    return connectHttp(target.url, {
      headers: target.headers,
      openStandaloneStream: false,
      ...(loggedIn && { authorizer: loggedIn.authorizer }),
    });
  }
  const { StdioClientTransport } = await import("@mcp-codegen/runtime/node");
  const transport = new StdioClientTransport({ command: target.command, args: target.args, stderr: "pipe" });
  const start = transport.start.bind(transport);
  // The child's stderr is read from the start (a full pipe would block it) and kept for a crash report.
  transport.start = async () => {
    await start();
    transport.stderr?.on("data", (chunk: Buffer) => onStderr(chunk.toString("utf8")));
  };
  return transport;
}

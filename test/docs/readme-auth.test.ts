/**
 * The README's "Protect your server" and "Connect to a protected server" run as written. The test reads
 * the two subsections, takes the command lines of their `sh` blocks, checks they are the ones it runs
 * (so a README edit breaks it until the test follows), and runs each one for real, changing only what a
 * test must: `npx mcp-codegen init` runs the packed packages offline (test/cli/packed.ts), `npm install`
 * is offline, https://auth.example.com is the test authorization server (oidc-provider on 127.0.0.1),
 * https://mcp.example.com/mcp is the started server's own URL, and PORT a free port. The `pull` lines run
 * the scaffold's own `npx mcp-codegen` with a fresh home (the token file lands in ~/.config), no CI, and
 * a fake `xdg-open` first on PATH; the test plays the browser through the printed (or opened) URL.
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../generated/2025-11-25/index.js";
import { OAuthClient } from "../../runtime/auth/oauth-client.js";
import { connectHttp } from "../../runtime/http-client/connect.js";
import { type AuthorizationServer, startAuthorizationServer } from "../auth/oidc-provider.js";
import { packedWorkspace } from "../cli/packed.js";
import { REPO } from "../cli/run.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { commandLines, endChildren, parse, type Run, startChild } from "./readme-run.js";

const README = readFileSync(join(REPO, "README.md"), "utf8");
const ISSUER = "https://auth.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
const URL_LINE = /Open this URL to log in: (\S+)/;

/**
 * The command lines of the `sh` blocks in the README subsection `### title`: continuation lines joined,
 * `# comments` dropped, blanks collapsed.
 */
function commandsOf(title: string): string[] {
  const start = README.indexOf(`\n### ${title}\n`);
  expect(start, `README has no "### ${title}"`).toBeGreaterThan(0);
  const rest = README.slice(start + title.length + 6);
  const section = rest.slice(0, rest.search(/\n##/) === -1 ? undefined : rest.search(/\n##/));
  return commandLines([...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((block) => block[1]!));
}

const { work, env: packedEnv, must, pack, initArgs } = packedWorkspace("mcp-codegen-readme-auth-");
const env: NodeJS.ProcessEnv = packedEnv;
/** A fake `xdg-open` first on the pull lines' PATH: it writes the URL it was given to OPENED. */
const BIN = join(work, "bin");
const OPENED = join(work, "opened.txt");
const children = new Set<ChildProcess>();
let as: AuthorizationServer;
/** The started server's URL: the README's https://mcp.example.com/mcp. */
let resource: string;
let port: number;

afterAll(async () => {
  endChildren(children);
  await as?.close();
  rmSync(work, { recursive: true, force: true });
});

beforeAll(async () => {
  mkdirSync(BIN, { recursive: true });
  writeFileSync(join(BIN, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${OPENED}'\n`, { mode: 0o755 });
  as = await startAuthorizationServer({ scopes: ["mcp:tools", "mcp:admin"] });
  port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  // Registering the server's URL as a resource, as the scaffold's README asks of its user.
  as.addResource({ uri: resource, scopes: ["mcp:tools", "mcp:admin"] });
});

/** The README's placeholders, made real. */
const substitute = (word: string) => (word === ISSUER ? as.issuer : word === RESOURCE ? resource : word);

/** A long-running child in its own process group, with its output collected. */
const start = (cmd: string, argv: string[], cwd: string, childEnv: NodeJS.ProcessEnv) =>
  startChild(children, cmd, argv, cwd, childEnv);

describe("README: Protect your server", () => {
  const commands = commandsOf("Protect your server");
  const dir = join(work, "my-server");

  it("lists the commands this test runs", () => {
    expect(commands).toEqual([
      "npx mcp-codegen init my-server --transport http --auth",
      "cd my-server",
      "npm install",
      "npm test",
      "npm run build",
      `MCP_AUTH_ISSUER=${ISSUER} MCP_AUTH_RESOURCE=${RESOURCE} PORT=3000 npm start`,
    ]);
  });

  it("runs them: the scaffold passes its test, builds, and serves protected with the environment alone", async () => {
    const packed = pack();
    let cwd = work;
    let server: ReturnType<typeof start> | undefined;
    for (const line of commands) {
      const { env: assigned, argv } = parse(line);
      const [cmd, ...args] = argv;
      const joined = argv.join(" ");
      if (joined.startsWith("npx mcp-codegen init ")) must("npx", initArgs(packed, args.slice(2)), cwd);
      else if (cmd === "cd") cwd = join(cwd, args[0]!);
      else if (joined === "npm install")
        must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], cwd);
      else if (joined === "npm test") {
        const tested = must("npm", ["test"], cwd);
        expect(tested.stdout).toMatch(/^# fail 0$/m);
        expect(tested.stdout).toMatch(/^ +ok \d+ - .*once the caller steps up after a 403/m);
      } else if (joined === "npm run build") must("npm", ["run", "build"], cwd);
      else if (joined === "npm start") {
        expect(Object.keys(assigned)).toEqual(["MCP_AUTH_ISSUER", "MCP_AUTH_RESOURCE", "PORT"]);
        const { MCP_AUTH_JWKS_URI: _jwks, ...inherited } = env;
        server = start("npm", ["start"], cwd, {
          ...inherited,
          MCP_AUTH_ISSUER: substitute(assigned.MCP_AUTH_ISSUER!),
          MCP_AUTH_RESOURCE: substitute(assigned.MCP_AUTH_RESOURCE!),
          PORT: String(port),
        });
      } else throw new Error(`a README command this test does not know: ${line}`);
    }
    expect(cwd).toBe(dir);
    expect(server, "npm start was not run").toBeDefined();
    const [, url] = await server!.stderrMatch(/MCP over Streamable HTTP at (\S+)/);
    expect(url).toBe(resource);

    // No token: 401 and the challenge pointing at the metadata, which names the authorization server.
    const refused = await fetch(resource, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await refused.text();
    expect(refused.status).toBe(401);
    const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
    expect(refused.headers.get("www-authenticate")).toContain(`resource_metadata="${metadataUrl}"`);
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource, authorization_servers: [as.issuer] });
    expect(metadata.scopes_supported).toEqual(expect.arrayContaining(["mcp:tools", "mcp:admin"]));

    // Our OAuthClient logs in through the authorization server and calls a tool.
    const authorizer = new OAuthClient({
      serverUrl: resource,
      redirectUri: "http://127.0.0.1:9/callback",
      redirectToAuthorization: (loginUrl) => as.authorize(loginUrl, { accountId: "readme-user" }),
      clientMetadata: { client_name: "readme-auth" },
    });
    const client = createClient({ info: { name: "readme-auth", version: "1.0.0" } });
    await client.connect(await connectHttp(resource, { authorizer }));
    try {
      const sum = await client.callTool({ name: "add", arguments: { a: 19, b: 23 } });
      expect(sum.structuredContent).toEqual({ sum: 42 });
    } finally {
      await client.close();
    }
    expect(as.log.grants.map((g) => [g.grantType, g.resource])).toEqual([["authorization_code", resource]]);
    expect(server!.run.code).toBeNull(); // still serving
  }, 240_000);
});

describe("README: Connect to a protected server", () => {
  const commands = commandsOf("Connect to a protected server");
  const dir = join(work, "my-server");
  const out = join(dir, "src/servers");
  /** Each way of logging in starts from a home of its own: a user who took the other line. */
  const homes = { printed: join(work, "home-printed"), opened: join(work, "home-opened") };
  const tokenFile = (home: string) => join(home, ".config/mcp-codegen/tokens.json");
  const runs: Run[] = [];

  /** A README pull line, from the scaffold's folder (its installed mcp-codegen), as a user at a terminal. */
  function pull(line: string, home: string) {
    const { env: assigned, argv } = parse(line);
    expect(assigned).toEqual({});
    expect(argv.slice(0, 3)).toEqual(["npx", "mcp-codegen", "pull"]);
    const {
      CI: _ci,
      MCP_BEARER_TOKEN: _bearer,
      MCP_CODEGEN_TOKEN_FILE: _file,
      XDG_CONFIG_HOME: _xdg,
      ...inherited
    } = env;
    mkdirSync(home, { recursive: true });
    return start("npx", argv.slice(1).map(substitute), dir, {
      ...inherited,
      HOME: home,
      npm_config_update_notifier: "false",
      PATH: `${BIN}:${inherited.PATH}`,
    });
  }

  /** Every file `pull` wrote, read. */
  const written = () =>
    readdirSync(out, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));

  /** No access or refresh token of either login in what pull wrote or printed. */
  function assertNoToken() {
    const secrets = Object.values(homes)
      .filter((home) => existsSync(tokenFile(home)))
      .flatMap((home) => {
        const kept = JSON.parse(readFileSync(tokenFile(home), "utf8"));
        const tokens = kept.tokens[as.issuer][resource];
        return [tokens.access_token, tokens.refresh_token].filter(Boolean) as string[];
      });
    expect(secrets.length).toBeGreaterThan(0);
    const texts = [...written(), ...runs.flatMap((r) => [r.stdout, r.stderr])];
    for (const secret of secrets) for (const text of texts) expect(text.includes(secret)).toBe(false);
  }

  it("lists the commands this test runs", () => {
    expect(commands).toEqual([
      `npx mcp-codegen pull ${RESOURCE} --out src/servers`,
      `npx mcp-codegen pull ${RESOURCE} --out src/servers --open`,
      `npx mcp-codegen pull --check --out src/servers ${RESOURCE}`,
    ]);
  });

  it("the first logs in through the printed URL, keeps the tokens in ~/.config 0600, writes lock and client", async () => {
    const run = pull(commands[0]!, homes.printed);
    const [, printed] = await run.stderrMatch(URL_LINE);
    const loginUrl = new URL(printed!);
    expect(loginUrl.origin).toBe(as.issuer);
    expect(loginUrl.searchParams.get("resource")).toBe(resource);
    expect(new URL(loginUrl.searchParams.get("redirect_uri")!).hostname).toBe("127.0.0.1");
    const page = await fetch(await as.authorizeRedirect(loginUrl, { accountId: "readme-user" }));
    expect(page.status).toBe(200);
    await page.text();
    const result = await run.done;
    runs.push(result);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("my-server 0.1.0");

    const lock = JSON.parse(readFileSync(join(out, "my-server.lock.json"), "utf8"));
    expect(lock.tools.map((t: { name: string }) => t.name).sort()).toEqual(["add", "greet", "whoami"]); // the scaffold's contract
    expect(readFileSync(join(out, "my-server/client.ts"), "utf8")).toContain("whoami");
    expect(statSync(tokenFile(homes.printed)).mode & 0o777).toBe(0o600);
    expect(existsSync(OPENED)).toBe(false); // no browser without --open
    expect(as.log.registrations.at(-1)?.metadata).toMatchObject({ client_name: "mcp-codegen" });
    assertNoToken();
  }, 90_000);

  it("the second (--open) opens the login URL in the browser, and writes the same lock", async () => {
    const lockBefore = readFileSync(join(out, "my-server.lock.json"), "utf8");
    const run = pull(commands[1]!, homes.opened);
    const [, printed] = await run.stderrMatch(URL_LINE);
    await expect
      .poll(() => existsSync(OPENED) && readFileSync(OPENED, "utf8"), { timeout: 10_000 })
      .toBe(printed);
    const page = await fetch(await as.authorizeRedirect(readFileSync(OPENED, "utf8")));
    expect(page.status).toBe(200);
    await page.text();
    const result = await run.done;
    runs.push(result);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(join(out, "my-server.lock.json"), "utf8")).toBe(lockBefore);
    expect(statSync(tokenFile(homes.opened)).mode & 0o777).toBe(0o600);
    assertNoToken();
  }, 90_000);

  it("pull --check reuses either login: no new login, no change", async () => {
    const authorizations = as.log.authorizations.length;
    const codeGrants = as.log.grants.filter((g) => g.grantType === "authorization_code").length;
    expect(authorizations).toBe(3); // the OAuthClient's above, and the two pulls'
    for (const home of Object.values(homes)) {
      const result = await pull(commands[2]!, home).done;
      runs.push(result);
      expect(result.stderr).not.toMatch(URL_LINE);
      expect(result.stdout).toBe("no changes: the server matches the lock\n");
      expect(result.code).toBe(0);
    }
    expect(as.log.authorizations).toHaveLength(authorizations);
    expect(as.log.grants.filter((g) => g.grantType === "authorization_code")).toHaveLength(codeGrants);
    assertNoToken();
    expect(as.errors).toEqual([]);
  }, 90_000);
});

/**
 * `mcp-codegen pull` against a protected server, with real processes on 127.0.0.1: the test authorization
 * server (oidc-provider, test/auth/oidc-provider.ts) and a server of ours behind `protect()` run in this
 * process; the CLI runs as a child. The test plays the browser: it reads the URL the CLI prints, signs in
 * at the authorization server, and brings the redirect back to the CLI's loopback endpoint.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createServer2025 } from "../../generated/2025-11-25/index.js";
import { createServer } from "../../generated/2026-07-28/index.js";
import { jwtVerifier, protect } from "../../runtime/auth/index.js";
import { HttpError } from "../../runtime/http/http-error.js";
import { serveHttp } from "../../runtime/node/index.js";
import { type AuthorizationServer, startAuthorizationServer } from "../auth/oidc-provider.js";
import { freePort } from "../fixtures/auth/protected-server.js";
import { REPO } from "./run.js";

const TMP = join(REPO, "test/.tmp", `pull-oauth-${process.pid}`);
const URL_LINE = /Open this URL to log in: (\S+)/;
/** A fake `xdg-open` first on the CLI's PATH: it writes the URL it was given to OPENED. */
const BIN = join(TMP, "bin");
const OPENED = join(TMP, "opened.txt");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Started {
  child: ChildProcess;
  /** Resolves with the login URL once printed. */
  loginUrl: Promise<string>;
  done: Promise<Run>;
}

/** The CLI as a child process: CI unset (a login may start), no bearer, tokens in `TMP/<store>`. */
function startPull(args: string[], env: NodeJS.ProcessEnv = {}): Started {
  const { CI: _ci, MCP_BEARER_TOKEN: _bearer, MCP_CODEGEN_TOKEN_FILE: _file, ...rest } = process.env;
  const child = spawn(
    `${REPO}node_modules/.bin/tsx`,
    ["--conditions=mcp-codegen-source", `${REPO}generator/cli/index.ts`, "pull", ...args],
    // The default token file would be under this directory, never the user's.
    {
      cwd: REPO,
      env: { ...rest, XDG_CONFIG_HOME: join(TMP, "xdg"), PATH: `${BIN}:${rest.PATH}`, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  let printed: (url: string) => void = () => {};
  const loginUrl = new Promise<string>((resolve) => {
    printed = resolve;
  });
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    const found = URL_LINE.exec(stderr);
    if (found) printed(found[1]!);
  });
  const timer = setTimeout(() => child.kill(), 60_000);
  const done = new Promise<Run>((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  // A CLI that ends without printing the URL fails the test at once, saying what it printed.
  const ended = done.then((run) =>
    Promise.reject(new Error(`pull exited (${run.code}) without a login URL: ${run.stderr}`)),
  );
  const url = Promise.race([loginUrl, ended]);
  url.catch(() => {}); // a run that prints no URL is only a failure where the test waits for one
  return { child, loginUrl: url, done };
}

const pull = (args: string[], env?: NodeJS.ProcessEnv) => startPull(args, env).done;

/** Every file under `dir`, read. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));
}

interface TokenFile {
  tokens: Record<
    string,
    Record<string, { access_token: string; refresh_token?: string; expires_at?: number }>
  >;
  clients: Record<string, { client_id: string }>;
}

const readTokens = (path: string) => JSON.parse(readFileSync(path, "utf8")) as TokenFile;

let as: AuthorizationServer;
let resource: string;
let closeServer: () => Promise<void>;
let port2025: number;
let resource2025: string;
/** Tokens for it live 2 s, and it allows no clock skew: they really expire within a test. */
let shortResource: string;
/** A server of ours that wants an API key (`X-Api-Key: key-1234`), not OAuth: its 401 has no challenge. */
let apiKeyUrl: string;

/** `server` on 127.0.0.1:`port`, taking the test authorization server's JWTs for `resource`. */
function serveProtected(
  server: Parameters<typeof serveHttp>[0],
  port: number,
  resource: string,
  clockToleranceSec?: number,
) {
  return serveHttp(server, {
    port,
    auth: protect({
      resource,
      authorizationServers: [as.issuer],
      verifier: jwtVerifier({
        issuer: as.issuer,
        audience: resource,
        jwksUri: as.jwksUri,
        ...(clockToleranceSec !== undefined && { clockToleranceSec }),
      }),
      scopesSupported: ["mcp:read"],
      requiredScopes: ["mcp:read"],
    }),
  });
}

beforeAll(async () => {
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(BIN, { recursive: true });
  writeFileSync(join(BIN, "xdg-open"), `#!/bin/sh\nprintf '%s' "$1" > '${OPENED}'\n`, { mode: 0o755 });
  as = await startAuthorizationServer({ scopes: ["mcp:read"] });
  const port = await freePort();
  resource = `http://127.0.0.1:${port}/mcp`;
  as.addResource({ uri: resource, scopes: ["mcp:read"] });
  const handlers = {
    listTools: () => ({
      tools: [
        {
          name: "forecast",
          inputSchema: {
            type: "object" as const,
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
      ],
    }),
    callTool: () => ({ content: [{ type: "text" as const, text: "sunny" }] }),
  };
  const http = await serveProtected(
    createServer({ info: { name: "weather", version: "1.0.0" }, handlers }),
    port,
    resource,
  );
  port2025 = await freePort();
  resource2025 = `http://127.0.0.1:${port2025}/mcp`;
  as.addResource({ uri: resource2025, scopes: ["mcp:read"] });
  const http2025 = await serveProtected(
    createServer2025({ info: { name: "weather-2025", version: "1.0.0" }, handlers }),
    port2025,
    resource2025,
  );
  const keyed = await serveHttp(createServer({ info: { name: "keyed", version: "1.0.0" }, handlers }), {
    port: await freePort(),
    authenticate: (request) => {
      if (request.headers.get("x-api-key") !== "key-1234") throw new HttpError(401, "an API key is needed");
      return "key-holder";
    },
  });
  apiKeyUrl = keyed.url;
  const shortPort = await freePort();
  shortResource = `http://127.0.0.1:${shortPort}/mcp`;
  as.addResource({ uri: shortResource, scopes: ["mcp:read"], accessTokenTtl: 2 });
  const short = await serveProtected(
    createServer({ info: { name: "short", version: "1.0.0" }, handlers }),
    shortPort,
    shortResource,
    0,
  );
  closeServer = async () => {
    await http.close();
    await http2025.close();
    await keyed.close();
    await short.close();
  };
}, 30_000);

afterAll(async () => {
  await closeServer?.();
  await as?.close();
  rmSync(TMP, { recursive: true, force: true });
});

describe("pull against a protected server", () => {
  const out = join(TMP, "out");
  const store = join(TMP, "tokens", "tokens.json");
  const secrets: string[] = [];
  let firstRedirectUri = "";
  /** Nothing the CLI wrote or printed holds a token. */
  const assertNoToken = (runs: Run[]) => {
    const texts = [...filesUnder(out), ...runs.flatMap((r) => [r.stdout, r.stderr])];
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) for (const text of texts) expect(text.includes(secret)).toBe(false);
  };

  it("logs in through the printed URL and the loopback redirect, keeps the tokens 0600, writes lock and client", async () => {
    const run = startPull(["--out", out, "--token-store", store, resource]);
    const loginUrl = new URL(await run.loginUrl);
    expect(loginUrl.origin).toBe(as.issuer);
    const redirectUri = new URL(loginUrl.searchParams.get("redirect_uri")!);
    expect(redirectUri.hostname).toBe("127.0.0.1");
    firstRedirectUri = redirectUri.href;
    expect(loginUrl.searchParams.get("resource")).toBe(resource);
    // The browser: sign in, then follow the redirect to the CLI's loopback endpoint.
    const back = await as.authorizeRedirect(loginUrl);
    expect(back.origin).toBe(redirectUri.origin);
    const page = await fetch(back);
    expect(page.status).toBe(200);
    await page.text();
    const result = await run.done;
    expect(result.stderr).toContain("weather 1.0.0");
    expect(result.code).toBe(0);

    const lock = JSON.parse(readFileSync(join(out, "weather.lock.json"), "utf8"));
    expect(lock.tools.map((t: { name: string }) => t.name)).toEqual(["forecast"]);
    expect(readFileSync(join(out, "weather/client.ts"), "utf8")).toContain("forecast");
    expect(statSync(store).mode & 0o777).toBe(0o600);
    const kept = readTokens(store);
    const tokens = kept.tokens[as.issuer]![resource]!;
    expect(tokens.refresh_token).toBeTruthy();
    secrets.push(tokens.access_token, tokens.refresh_token!);
    expect(as.log.registrations).toHaveLength(1);
    expect(as.log.registrations[0]!.metadata).toMatchObject({
      client_name: "mcp-codegen",
      application_type: "native",
    });
    expect(kept.clients[as.issuer]!.client_id).toBe(as.log.registrations[0]!.clientId);
    expect(as.log.grants.map((g) => g.grantType)).toEqual(["authorization_code"]);
    assertNoToken([result]);
    expect(existsSync(OPENED)).toBe(false); // no browser without --open
  }, 90_000);

  it("pull --check reuses the stored token: no login, no new grant", async () => {
    const result = await pull(["--check", "--out", out, "--token-store", store, resource]);
    expect(result.stderr).not.toMatch(URL_LINE);
    expect(result.stdout).toBe("no changes: the server matches the lock\n");
    expect(result.code).toBe(0);
    expect(as.log.authorizations).toHaveLength(1);
    expect(as.log.grants.map((g) => g.grantType)).toEqual(["authorization_code"]);
    assertNoToken([result]);
  }, 60_000);

  it("refreshes an expired token under --check and in a second pull, without a login", async () => {
    // The stored token's expiry, as the client read it from the token response, moved into the past.
    const file = readTokens(store);
    const entry = file.tokens[as.issuer]![resource]!;
    const old = entry.access_token;
    entry.expires_at = Math.floor(Date.now() / 1000) - 60;
    writeFileSync(store, JSON.stringify(file));
    expect(statSync(store).mode & 0o777).toBe(0o600);

    const check = await pull(["--check", "--out", out, "--token-store", store, resource]);
    expect(check.stderr).not.toMatch(URL_LINE);
    expect(check.code).toBe(0);
    expect(as.log.grants.map((g) => g.grantType)).toEqual(["authorization_code", "refresh_token"]);
    const renewed = readTokens(store).tokens[as.issuer]![resource]!;
    expect(renewed.access_token).not.toBe(old);
    expect(renewed.expires_at!).toBeGreaterThan(Date.now() / 1000);
    secrets.push(renewed.access_token, ...(renewed.refresh_token ? [renewed.refresh_token] : []));

    const again = await pull(["--out", out, "--token-store", store, resource]);
    expect(again.stderr).not.toMatch(URL_LINE);
    expect(again.code).toBe(0);
    expect(as.log.authorizations).toHaveLength(1);
    expect(as.log.grants).toHaveLength(2);
    assertNoToken([check, again]);
  }, 90_000);

  it("a new login keeps the stored registration, on another loopback port; --open opens the URL", async () => {
    const file = readTokens(store);
    const { client_id } = file.clients[as.issuer]!;
    file.tokens = {}; // logged out, still registered
    writeFileSync(store, JSON.stringify(file));
    const run = startPull(["--open", "--out", out, "--token-store", store, resource]);
    const loginUrl = new URL(await run.loginUrl);
    expect(loginUrl.searchParams.get("client_id")).toBe(client_id);
    expect(loginUrl.searchParams.get("redirect_uri")).not.toBe(firstRedirectUri);
    await expect
      .poll(() => existsSync(OPENED) && readFileSync(OPENED, "utf8"), { timeout: 10_000 })
      .toBe(loginUrl.href);
    const page = await fetch(await as.authorizeRedirect(loginUrl));
    expect(page.status).toBe(200);
    await page.text();
    const result = await run.done;
    expect(result.code).toBe(0);
    expect(as.log.registrations).toHaveLength(1);
    expect(as.log.authorizations).toHaveLength(2);
    const tokens = readTokens(store).tokens[as.issuer]![resource]!;
    secrets.push(tokens.access_token, ...(tokens.refresh_token ? [tokens.refresh_token] : []));
    assertNoToken([result]);
  }, 90_000);
});

describe("pull against a server whose tokens live 2 seconds", () => {
  it("--check after the stored access token really expired: refreshed, no login", async () => {
    const out = join(TMP, "out-short");
    const store = join(TMP, "stores", "short.json");
    const run = startPull(["--out", out, "--token-store", store, shortResource]);
    const page = await fetch(await as.authorizeRedirect(await run.loginUrl));
    await page.text();
    expect((await run.done).code).toBe(0);
    const stored = readTokens(store).tokens[as.issuer]![shortResource]!;
    // Past its expiry, at the server too: it refuses the token now.
    await new Promise((resolve) => setTimeout(resolve, (stored.expires_at! + 1) * 1000 - Date.now()));
    const refused = await fetch(shortResource, {
      method: "POST",
      headers: {
        authorization: `Bearer ${stored.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await refused.text();
    expect(refused.status).toBe(401);
    const refreshes = as.log.grants.filter((g) => g.grantType === "refresh_token").length;
    const authorizations = as.log.authorizations.length;
    const check = await pull(["--check", "--out", out, "--token-store", store, shortResource]);
    expect(check.stderr).not.toMatch(URL_LINE);
    expect(check.code).toBe(0);
    expect(as.log.grants.filter((g) => g.grantType === "refresh_token").length).toBeGreaterThan(refreshes);
    expect(as.log.authorizations).toHaveLength(authorizations);
    expect(readTokens(store).tokens[as.issuer]![shortResource]!.access_token).not.toBe(stored.access_token);
  }, 90_000);
});

describe("pull against a protected 2025-11-25 server (sessions)", () => {
  it("logs in, then pulls over the initialize handshake with the token; --check reuses it", async () => {
    const out = join(TMP, "out-2025");
    const store = join(TMP, "stores", "2025.json");
    const run = startPull(["--out", out, "--token-store", store, resource2025]);
    const page = await fetch(await as.authorizeRedirect(await run.loginUrl));
    expect(page.status).toBe(200);
    await page.text();
    const result = await run.done;
    expect(result.stderr).toContain("weather-2025 1.0.0 (protocol 2025-11-25");
    expect(result.code).toBe(0);
    const lock = JSON.parse(readFileSync(join(out, "weather-2025.lock.json"), "utf8"));
    expect(lock.protocolVersion).toBe("2025-11-25");
    const check = await pull(["--check", "--out", out, "--token-store", store, resource2025]);
    expect(check.stderr).not.toMatch(URL_LINE);
    expect(check.code).toBe(0);
    const tokens = readTokens(store).tokens[as.issuer]![resource2025]!;
    for (const text of [...filesUnder(out), result.stdout, result.stderr, check.stdout, check.stderr])
      expect(text.includes(tokens.access_token)).toBe(false);
  }, 90_000);
});

describe("pull and a server that wants no OAuth", () => {
  it("a server given its API key with -H starts no login", async () => {
    const store = join(TMP, "stores", "keyed.json");
    const result = await pull([
      "-H",
      "X-Api-Key: key-1234",
      "--out",
      join(TMP, "keyed"),
      "--token-store",
      store,
      apiKeyUrl,
    ]);
    expect(result.stderr).not.toMatch(URL_LINE);
    expect(result.stderr).toContain("keyed 1.0.0");
    expect(result.code).toBe(0);
    expect(existsSync(store)).toBe(false);
  }, 60_000);

  it("its 401 without the key: the login cannot start, exit 2 saying how to give a credential", async () => {
    const result = await pull([
      "--out",
      join(TMP, "keyed"),
      "--token-store",
      join(TMP, "stores", "keyed.json"),
      apiKeyUrl,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `cannot pull from ${apiKeyUrl} while logging in (it answered 401; --bearer or -H`,
    );
    expect(result.stderr).not.toMatch(URL_LINE);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe("pull's login, refused or failed", () => {
  const fresh = (name: string) => join(TMP, "stores", `${name}.json`);

  it("--check never starts a login: exit 2, telling to run pull in a terminal, no URL, no registration", async () => {
    const registrations = as.log.registrations.length;
    const result = await pull([
      "--check",
      "--out",
      join(TMP, "none"),
      "--token-store",
      fresh("check"),
      resource,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(URL_LINE);
    expect(result.stderr).toContain("needs a login, and --check never starts a login");
    expect(result.stderr).toContain(`mcp-codegen pull ${resource}`);
    expect(result.stderr).not.toMatch(/\n\s+at /); // a message, not a stack
    expect(as.log.registrations).toHaveLength(registrations);
    expect(existsSync(fresh("check"))).toBe(false);
  }, 60_000);

  it("--no-login: the same refusal", async () => {
    const result = await pull([
      "--no-login",
      "--out",
      join(TMP, "none"),
      "--token-store",
      fresh("no-login"),
      resource,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("needs a login, and --no-login is set");
    expect(result.stderr).not.toMatch(URL_LINE);
  }, 60_000);

  it("a token file others may read is refused, naming the fix and nothing it holds", async () => {
    const path = fresh("open");
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify({ version: 1, tokens: {}, clients: {}, note: "private-content" }), {
      mode: 0o644,
    });
    chmodSync(path, 0o644);
    const result = await pull(["--out", join(TMP, "none"), "--token-store", path, resource]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${path}: is readable or writable by others (mode 644)`);
    expect(result.stderr).toContain(`chmod 600 ${path}`);
    expect(result.stderr).not.toContain("private-content");
    expect(result.stderr).not.toMatch(URL_LINE);
  }, 60_000);

  it("--login-timeout must be a positive number of seconds", async () => {
    const result = await pull(["--login-timeout", "soon", "--out", join(TMP, "none"), resource]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--login-timeout must be a positive number of seconds, got soon");
  }, 60_000);

  it("neither does a pull under CI (MCP_CODEGEN_TOKEN_FILE names the store)", async () => {
    const result = await pull(["--out", join(TMP, "none"), resource], {
      CI: "true",
      MCP_CODEGEN_TOKEN_FILE: fresh("ci"),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("needs a login, and CI is set");
    expect(result.stderr).toContain(fresh("ci"));
    expect(result.stderr).not.toMatch(URL_LINE);
  }, 60_000);

  it("a login nobody finishes times out: exit 2 and a clear message", async () => {
    const started = Date.now();
    const run = startPull([
      "--out",
      join(TMP, "none"),
      "--token-store",
      fresh("timeout"),
      "--login-timeout",
      "1",
      resource,
    ]);
    await run.loginUrl;
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /error: no login within 1 s: the browser did not come back to http:\/\/127\.0\.0\.1:\d+\/callback/,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);

  it("a redirect with another state is refused: the code is not redeemed, exit 2", async () => {
    const grants = as.log.grants.length;
    const run = startPull(["--out", join(TMP, "none"), "--token-store", fresh("state"), resource]);
    const back = await as.authorizeRedirect(await run.loginUrl);
    expect(back.searchParams.get("code")).toBeTruthy();
    back.searchParams.set("state", "not-the-login-s-state");
    const page = await fetch(back);
    expect(page.status).toBe(400);
    await page.text();
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("login refused: the redirect to");
    expect(result.stderr).toContain("carried a state that is not this login's");
    expect(as.log.grants).toHaveLength(grants);
  }, 60_000);
});

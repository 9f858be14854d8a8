/**
 * `init --auth` as a user gets it: the packed packages, `init --transport http --auth` (and `both`) from
 * the tarballs, an offline install, the scaffold's own `npm test` (its server against the small issuer it
 * ships), then the built server pointed at a real authorization server (oidc-provider) by its
 * environment alone: the official SDK v2 client discovers it from the 401, registers, logs in, calls a
 * tool, and steps up for the tool whose contract scope is wider. Usage errors of `--auth` come first,
 * through the CLI from source.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOSE_RANGE } from "../../generator/cli/init.js";
import { type AuthorizationServer, startAuthorizationServer } from "../auth/oidc-provider.js";
import { afterLogin, connectWithLogin, SdkOAuthClient } from "../auth/sdk-oauth-client.js";
import { packedWorkspace } from "./packed.js";
import { REPO, runCli } from "./run.js";

describe("init --auth refuses what it cannot scaffold, with exit 2 and a message", () => {
  const refused = (args: string[], message: RegExp) => {
    const r = runCli(["init", join(REPO, "test/.tmp/init-auth-never-written"), ...args]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toContain("internal error");
  };

  it("without an HTTP transport (stdio is the default), or with --client", () => {
    refused(["--auth"], /--auth protects an HTTP server .*add --transport http, or --transport both/);
    refused(["--auth", "--transport", "stdio"], /--auth protects an HTTP server/);
    refused(["--auth", "--client"], /--auth protects a server/);
  });

  it("its settings without --auth, two different resources, or URLs that cannot be an issuer's", () => {
    refused(["--issuer", "https://auth.example.com"], /--issuer applies only with --auth/);
    refused(
      ["--transport", "http", "--resource", "https://a.example/mcp", "--jwks-uri", "https://a.example/k"],
      /--resource, --jwks-uri apply only with --auth/,
    );
    const http = ["--transport", "http", "--auth"];
    refused(
      [...http, "--resource", "https://a.example/mcp", "--audience", "https://b.example/mcp"],
      /--resource and --audience name the same thing/,
    );
    refused([...http, "--issuer", "http://auth.example.com"], /--issuer must be an https URL/);
    refused([...http, "--audience", "not a url"], /--audience must be a URL/);
    refused(
      [...http, "--jwks-uri", "https://auth.example.com/jwks#k"],
      /--jwks-uri must not have a #fragment/,
    );
  });

  it("--help lists --auth and its settings, and the environment that overrides them", () => {
    const r = runCli(["init", "--help"]);
    expect(r.code).toBe(0);
    for (const text of [
      "--auth",
      "--issuer <url>",
      "--resource <url>",
      "--audience <url>",
      "--jwks-uri <url>",
    ])
      expect(r.stdout).toContain(text);
    expect(r.stdout).toMatch(/MCP_AUTH_ISSUER,\s+MCP_AUTH_RESOURCE and MCP_AUTH_JWKS_URI override them/);
  });

  it("the scaffold's jose range is the runtime's", () => {
    const runtime = JSON.parse(readFileSync(join(REPO, "runtime/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(JOSE_RANGE).toBe(runtime.dependencies.jose);
  });
});

const { work, must, run, pack, initArgs } = packedWorkspace("mcp-codegen-init-auth-");
const httpDir = join(work, "notes-server");
const bothDir = join(work, "both-server");
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
});

beforeAll(() => {
  const packed = pack();
  must("npx", initArgs(packed, [httpDir, "--transport", "http", "--auth"]), work);
  must(
    "npx",
    initArgs(packed, [
      bothDir,
      "--transport",
      "both",
      "--auth",
      "--resource",
      "https://mcp.example.com/mcp",
      "--jwks-uri",
      "https://auth.example.com/jwks",
    ]),
    work,
  );
  for (const dir of [httpDir, bothDir])
    must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], dir);
  // Built once here too, so that each test stands alone (npm test builds again).
  must("npm", ["run", "build"], httpDir);
}, 600_000);

/** A port free now: the resource URL (the tokens' audience) must be known before the server starts. */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => probe.once("listening", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The built scaffold in `dir` with `env` added: its URL once it listens, or its exit code and stderr. */
function startBuilt(dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [join(dir, "dist/src/main.js")], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  children.add(child);
  let stderr = "";
  return new Promise<{ url?: string; code?: number | null; stderr: string }>((resolve) => {
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const url = /at (http:\/\/\S+)/.exec(stderr)?.[1];
      if (url) resolve({ url, stderr });
    });
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

describe("a scaffold made by init --transport http --auth", () => {
  it("is what the flags asked for: the contract's scopes, the server protected, the settings from the environment", () => {
    const contract = readFileSync(join(httpDir, "contract.yaml"), "utf8");
    expect(contract).toMatch(/^auth:\n {2}scopes: \[mcp:tools\]$/m);
    expect(contract).toMatch(/^ {2}whoami:\n(?: {4}.*\n)*? {4}scopes: \[mcp:admin\]$/m);
    expect(readFileSync(join(httpDir, "src/main.ts"), "utf8")).toContain("auth: await protection()");
    const pkg = JSON.parse(readFileSync(join(httpDir, "package.json"), "utf8"));
    expect(pkg.scripts.test).toBe("npm run -s build && tsx --test test/auth.test.ts");
    expect(pkg.devDependencies.jose).toBe(JOSE_RANGE);
    const readme = readFileSync(join(httpDir, "README.md"), "utf8");
    for (const text of [
      "## Authorization",
      "MCP_AUTH_ISSUER",
      "MCP_AUTH_RESOURCE",
      "MCP_AUTH_JWKS_URI",
      "403",
    ])
      expect(readme).toContain(text);
    expect(readFileSync(join(bothDir, "src/auth.ts"), "utf8")).toContain(
      'const DEFAULTS: Partial<Record<keyof typeof AUTH_ENV, string>> = {"resource":"https://mcp.example.com/mcp","jwksUri":"https://auth.example.com/jwks"};',
    );
  });

  it("passes its own npm test: 401 and metadata, bad tokens refused, a call, 403 then step-up, no start without settings", () => {
    const tested = run("npm", ["test"], httpDir);
    const out = tested.stdout + tested.stderr;
    expect(tested.code, out).toBe(0);
    expect(tested.stdout).toMatch(/^# pass 6$/m);
    expect(tested.stdout).toMatch(/^# fail 0$/m);
    for (const name of [
      "answers 401 without a token",
      "refuses a token for another audience, an expired one and a forged one",
      "once the caller steps up after a 403",
      "exits 1 naming MCP_AUTH_ISSUER when it is not set",
    ])
      expect(tested.stdout).toMatch(new RegExp(`^ +ok \\d+ - .*${name}`, "m"));
  }, 300_000);

  it("refuses to start without MCP_AUTH_ISSUER and MCP_AUTH_RESOURCE, naming both, never serving unprotected", async () => {
    const result = await startBuilt(httpDir, { PORT: "0", MCP_AUTH_ISSUER: "", MCP_AUTH_RESOURCE: "" });
    expect(result.url, result.stderr).toBeUndefined();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      "notes-server: refusing to serve HTTP without authorization settings: set MCP_AUTH_ISSUER and MCP_AUTH_RESOURCE",
    );
  });

  describe("against a real authorization server (oidc-provider), with the SDK v2 client", () => {
    let as: AuthorizationServer;
    let url: string;
    beforeAll(async () => {
      as = await startAuthorizationServer({ scopes: ["mcp:tools", "mcp:admin"] });
      const port = await freePort();
      const resource = `http://127.0.0.1:${port}/mcp`;
      as.addResource({ uri: resource, scopes: ["mcp:tools", "mcp:admin"] });
      // Only the environment points it there; the JWKS URL comes from the provider's metadata.
      const started = await startBuilt(httpDir, {
        PORT: String(port),
        MCP_AUTH_ISSUER: as.issuer,
        MCP_AUTH_RESOURCE: resource,
        MCP_AUTH_JWKS_URI: "",
      });
      expect(started.url, started.stderr).toBe(resource);
      url = started.url!;
    }, 60_000);
    afterAll(async () => {
      expect(as?.errors).toEqual([]);
      await as?.close();
    });

    it("logs in from the 401 (discovery, registration, PKCE, resource), calls add, and steps up for whoami", async () => {
      const login = new SdkOAuthClient(as, { accountId: "dana" });
      const client = new Client({ name: "init-auth", version: "1.0.0" });
      const transport = () => new StreamableHTTPClientTransport(new URL(url), { authProvider: login });
      await connectWithLogin(client, login, transport);
      try {
        expect(login.authorizationUrls).toHaveLength(1);
        const first = login.authorizationUrls[0]!;
        expect(first.searchParams.get("resource")).toBe(url);
        expect(first.searchParams.get("scope")).toBe("mcp:tools");
        expect(first.searchParams.get("code_challenge_method")).toBe("S256");
        const registration = as.log.registrations.at(-1);
        expect(as.log.grants.at(-1)).toMatchObject({ grantType: "authorization_code", resource: url });

        const sum = await client.callTool({ name: "add", arguments: { a: 19, b: 23 } });
        expect(sum.structuredContent).toEqual({ sum: 42 });

        // whoami needs mcp:admin too: 403 insufficient_scope, and the SDK asks the user again for both.
        const who = await afterLogin(login, client.transport as StreamableHTTPClientTransport, () =>
          client.callTool({ name: "whoami", arguments: {} }),
        );
        expect(login.authorizationUrls).toHaveLength(2);
        expect(login.authorizationUrls[1]!.searchParams.get("scope")?.split(" ").sort()).toEqual([
          "mcp:admin",
          "mcp:tools",
        ]);
        expect(who.isError).toBeFalsy();
        expect(who.structuredContent).toMatchObject({ subject: "dana", clientId: registration?.clientId });
        expect([...(who.structuredContent as { scopes: string[] }).scopes].sort()).toEqual([
          "mcp:admin",
          "mcp:tools",
        ]);
      } finally {
        await client.close();
      }
    }, 60_000);
  });
});

describe("a scaffold made by init --transport both --auth", () => {
  it("passes its own npm test: the contract over stdio as the local caller, and the HTTP checks with init's defaults overridden", () => {
    const tested = run("npm", ["test"], bothDir);
    const out = tested.stdout + tested.stderr;
    expect(tested.code, out).toBe(0);
    expect(tested.stdout).toMatch(/✓ whoami: \d+ runs, \d+ passed/);
    expect(tested.stdout).toMatch(
      /OK: every tool, prompt, resource template and resource holds to contract\.yaml/,
    );
    expect(tested.stdout).toMatch(/^# fail 0$/m);
    expect(tested.stdout).toMatch(/^ +ok \d+ - .*once the caller steps up after a 403/m);
  }, 300_000);
});

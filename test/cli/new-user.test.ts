/**
 * A new user's path, in temporary folders: `npm pack` this package, `init` a server and a client project,
 * install the packed tarball from the local file, type-check, build, run the server for the official SDK
 * client; then edit a handler, move to a newer protocol with `generate --protocol`, and check that the
 * user's code is intact, stubs appeared, it compiles, and a second `generate` changes nothing.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import registry from "../../schema/versions.json" with { type: "json" };
import { packedWorkspace } from "./packed.js";
import { REPO } from "./run.js";

const { work, env, run, must, pack, initArgs } = packedWorkspace("mcp-codegen-new-user-");
let packed = { tarball: "", runtimeTarball: "" };
afterAll(() => rmSync(work, { recursive: true, force: true }));
/** The scaffold's package.json points at the packed tarballs (`init --from-tarballs`): install from them. */
const install = (dir: string, ...flags: string[]) =>
  must("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...flags], dir);

/** Every file under `dir` (node_modules and dist excluded) with its hash, to prove "nothing touched". */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath, e.name);
    if (!e.isFile() || /\/(node_modules|dist)\//.test(`${path}/`)) continue;
    out[path.slice(dir.length)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

/** The way the README says to try a clone: pack both packages, then init through npx from the tarball. */
beforeAll(() => {
  packed = pack();
}, 180_000);

/** `npx --package <runtime.tgz> --package <codegen.tgz> mcp-codegen init … --from-tarballs <packs>`, as the README says. */
const init = (args: string[]) => run("npx", initArgs(packed, args), work);

describe("a new user's server project", () => {
  const dir = join(work, "my-server");
  const cli = (args: string[]) => run(`${dir}/node_modules/.bin/mcp-codegen`, args, dir);

  it("init scaffolds a project that installs, type-checks and builds", () => {
    const created = init([dir, "--protocol", "2025-06-18", "--transport", "both"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain("created server project my-server");
    // The production dependency is the runtime alone; the generator is a development tool.
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<
      string,
      Record<string, string>
    >;
    expect(Object.keys(pkg.dependencies!)).toEqual(["@mcp-codegen/runtime"]);
    expect(pkg.devDependencies!["mcp-codegen"]).toMatch(/^file:.*mcp-codegen-\d.*\.tgz$/);
    expect(readFileSync(join(dir, "src/main.ts"), "utf8")).toContain("serveHttp");
    expect(readdirSync(dir).sort()).toEqual([
      ".gitignore",
      "README.md",
      "contract.yaml",
      "generated",
      "mcp-codegen.json",
      "package.json",
      "src",
      "tsconfig.json",
    ]);
    // Every install script it brings (esbuild's) is approved in allowScripts: npm has nothing to warn of.
    const installed = install(dir);
    expect(installed.stdout + installed.stderr).not.toMatch(/install-scripts|allowScripts/);
    must(`${dir}/node_modules/.bin/tsc`, ["--noEmit", "-p", "tsconfig.json"], dir);
    must("npm", ["run", "-s", "build"], dir);
    // The build bundles main.js: it imports only node built-ins, not the runtime or the generated code.
    const bundle = readFileSync(join(dir, "dist/src/main.js"), "utf8");
    expect(bundle).toContain("// node_modules/@mcp-codegen/runtime/dist/node/stdio-server.js");
    expect(
      [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)]
        .map((m) => m[1])
        .filter((s) => !s!.startsWith("node:")),
    ).toEqual([]);
  }, 180_000);

  it("installs for production with the runtime alone: at most 3 packages and 2 MB", () => {
    const prod = join(work, "my-server-prod");
    mkdirSync(prod);
    writeFileSync(join(prod, "package.json"), readFileSync(join(dir, "package.json")));
    install(prod, "--omit=dev");
    const top = readdirSync(join(prod, "node_modules")).filter((n) => !n.startsWith("."));
    const names = top.flatMap((n) =>
      n.startsWith("@") ? readdirSync(join(prod, "node_modules", n)).map((m) => `${n}/${m}`) : [n],
    );
    // The runtime's two dependencies: the SSE parser, and jose (loaded only by the auth entry).
    expect(names.sort()).toEqual(["@mcp-codegen/runtime", "eventsource-parser", "jose"]);
    const bytes = Number(
      execFileSync("du", ["-sb", join(prod, "node_modules")], { encoding: "utf8" }).split("\t")[0],
    );
    expect(bytes).toBeLessThan(2 * 1024 * 1024);
    console.info(`production install: ${names.length} packages, ${bytes} bytes`);
  }, 180_000);

  it("the tarball carries every pinned schema, and generate offline without them names the ways to provide one", () => {
    const listing = execFileSync("tar", ["tzf", packed.tarball], { encoding: "utf8" }).split("\n");
    const installed = join(dir, "node_modules/mcp-codegen");
    for (const [version, entry] of Object.entries(registry.versions)) {
      expect(listing).toContain(`package/schema/bundled/${version}/schema.json`);
      const bytes = readFileSync(join(installed, "schema/bundled", version, "schema.json"));
      expect(createHash("sha256").update(bytes).digest("hex"), version).toBe(entry.sha256);
    }
    const before = tree(dir);
    renameSync(join(installed, "schema/bundled"), join(installed, "schema/bundled.away"));
    try {
      const r = cli(["generate"]);
      expect(r.code, r.stderr).toBe(2);
      for (const part of [
        "no MCP schema 2025-06-18 found",
        "http://127.0.0.1:9/2025-06-18/schema.json",
        "$MCP_SCHEMA_DIR: not set",
        `the copies bundled with mcp-codegen: ${join(installed, "schema/bundled/2025-06-18/schema.json")}`,
        `the cache: ${join(env.MCP_CODEGEN_CACHE_DIR, "2025-06-18/schema.json")}`,
        "set MCP_SCHEMA_DIR to a folder holding 2025-06-18/schema.json",
        "pass --schema <file|url>",
      ])
        expect(r.stderr).toContain(part);
      expect(r.stderr).not.toMatch(/^\s+at /m);
    } finally {
      renameSync(join(installed, "schema/bundled.away"), join(installed, "schema/bundled"));
    }
    expect(tree(dir)).toEqual(before);
  });

  it("init --from-tarballs names what is missing, exit 2, and writes nothing", () => {
    const r = run(
      "node",
      [`${REPO}bin/mcp-codegen.js`, "init", join(work, "nothing-here"), "--from-tarballs", work],
      work,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/mcp-codegen-runtime-.*\.tgz not found/);
    expect(() => readdirSync(join(work, "nothing-here"))).toThrow();
  });

  it("serves the official SDK client over stdio", async () => {
    const client = new Client({ name: "new-user", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [`${dir}/dist/src/main.js`],
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerVersion()).toEqual({ name: "my-server", version: "0.1.0" });
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add", "greet"]);
      const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
      expect(result.content).toEqual([{ type: "text", text: "Hello, Ada." }]);
      // The tool with an outputSchema: structured content, and the same as JSON text for older clients.
      const sum = await client.callTool({ name: "add", arguments: { a: 2, b: 40 } });
      expect(sum.structuredContent).toEqual({ sum: 42 });
      expect(sum.content).toEqual([{ type: "text", text: '{"sum":42}' }]);
      // Protocol 2025-06-18 lists invalid arguments among the protocol errors: -32602 naming the field.
      await expect(client.callTool({ name: "greet", arguments: { name: 12345 } })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Invalid arguments for tool "greet": name: Expected string'),
      });
      await expect(client.callTool({ name: "greet", arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("name: Required"),
      });
      await expect(client.callTool({ name: "nope", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      const prompt = await client.getPrompt({ name: "introduce", arguments: { audience: "testers" } });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "Introduce the my-server server to testers." } },
      ]);
      await expect(client.getPrompt({ name: "introduce", arguments: {} })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining("audience: Required"),
      });
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "greeting://{name}{?lang}",
      ]);
      const read = await client.readResource({ uri: "greeting://Ada?lang=fr" });
      expect(read.contents).toEqual([
        { uri: "greeting://Ada?lang=fr", mimeType: "text/plain", text: "Bonjour, Ada !" },
      ]);
      await expect(client.readResource({ uri: "greeting://Ada?lang=de" })).rejects.toMatchObject({
        code: -32602,
      });
      const completion = await client.complete({
        ref: { type: "ref/resource", uri: "greeting://{name}{?lang}" },
        argument: { name: "lang", value: "f" },
      });
      expect(completion.completion.values).toEqual(["fr"]);
    } finally {
      await client.close();
    }
  });

  it("npm test property-tests every tool, prompt, resource template and resource of the built server against its contract", () => {
    const tested = run("npm", ["test"], dir);
    const out = tested.stdout + tested.stderr;
    expect(tested.code, out).toBe(0);
    expect(out).toMatch(/✓ tools\/list: the contract's 2 tools, same schemas/);
    // A sum past the largest double is the scaffold's isError answer, which a sample sometimes reaches.
    expect(out).toMatch(
      /✓ add: 100 runs, 100 passed( \(\d+ answered isError\))?; 4 of 4 wrong arguments refused/,
    );
    expect(out).toMatch(/✓ greet: 100 runs, 100 passed; 2 of 2 wrong arguments refused/);
    expect(out).toMatch(/✓ prompts\/list: the contract's 1 prompt, same arguments/);
    // audience missing, tone outside its enum.
    expect(out).toMatch(/✓ prompt introduce: 100 runs, 100 passed; 2 of 2 wrong arguments refused/);
    expect(out).toMatch(
      /✓ resources\/templates\/list: the contract's 1 resource template, same URI templates/,
    );
    // lang outside its enum (name is any text).
    expect(out).toMatch(/✓ resource template greeting: 100 runs, 100 passed; 1 of 1 wrong URIs refused/);
    expect(out).toMatch(/✓ resource about: info:\/\/about read/);
    expect(out).toMatch(/OK: every tool, prompt, resource template and resource holds to contract\.yaml/);
  }, 240_000);

  it("pull locks the built server, pull --check passes on it and fails with a readable diff once a tool breaks", () => {
    const server = ["--", process.execPath, "dist/src/main.js"];
    const pulled = cli(["pull", "--out", "pulled", ...server]);
    expect(pulled.code, pulled.stderr).toBe(0);
    const lock = JSON.parse(readFileSync(join(dir, "pulled/my-server.lock.json"), "utf8")) as {
      tools: { name: string }[];
    };
    expect(lock.tools.map((t) => t.name)).toEqual(["add", "greet"]);
    expect(readdirSync(join(dir, "pulled/my-server")).sort()).toEqual([
      "client.ts",
      "types.ts",
      "validators.ts",
    ]);
    const unchanged = cli(["pull", "--check", "--out", "pulled", ...server]);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(unchanged.stdout + unchanged.stderr).toContain("no changes: the server matches the lock");

    const contractPath = join(dir, "contract.yaml");
    const contract = readFileSync(contractPath, "utf8");
    const broken = contract
      .replace("required: [a, b]", "required: [a, b, c]")
      .replace(
        "        b: { type: number, description: The second addend }\n",
        "        b: { type: number, description: The second addend }\n        c: { type: number }\n",
      );
    expect(broken).toContain("c: { type: number }");
    writeFileSync(contractPath, broken);
    try {
      expect(cli(["generate"]).code).toBe(0);
      must("npm", ["run", "-s", "build"], dir);
      const check = cli(["pull", "--check", "--out", "pulled", ...server]);
      expect(check.code, check.stderr).toBe(1);
      expect(check.stdout).toContain('tool add\n  BREAKING   new required argument "c"\n');
      expect(check.stdout).toContain("1 breaking, 0 compatible");
    } finally {
      writeFileSync(contractPath, contract);
      expect(cli(["generate"]).code).toBe(0);
      must("npm", ["run", "-s", "build"], dir);
      rmSync(join(dir, "pulled"), { recursive: true, force: true });
    }
  }, 240_000);

  it("serves the official SDK client over Streamable HTTP on 127.0.0.1", async () => {
    const child = spawn(process.execPath, [`${dir}/dist/src/main.js`, "--http", "0"], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = "";
        child.stderr.setEncoding("utf8");
        child.stderr.on("data", (chunk: string) => {
          text += chunk;
          const m = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(text);
          if (m) resolve(m[1]!);
        });
        child.once("exit", (code) => reject(new Error(`server exited (${code}): ${text}`)));
        setTimeout(() => reject(new Error(`no URL within 20 s: ${text}`)), 20_000).unref();
      });
      const client = new Client({ name: "new-user-http", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["add", "greet"]);
        const result = await client.callTool({ name: "greet", arguments: { name: "HTTP" } });
        expect(result.content).toEqual([{ type: "text", text: "Hello, HTTP." }]);
      } finally {
        await client.close();
      }
    } finally {
      child.kill();
    }
  });

  it("moves to a newer protocol keeping the user's code byte for byte", () => {
    const handlersPath = join(dir, "src/handlers.ts");
    const who = "$" + "{name}"; // the user's template literal, as source text
    const edited = readFileSync(handlersPath, "utf8").replace(
      `\`Hello, ${who}.\``,
      `\`Hi there, ${who}! (edited)\``,
    );
    expect(edited).toContain("(edited)");
    writeFileSync(handlersPath, edited);
    const bump = cli(["generate", "--protocol", "2025-11-25"]);
    expect(bump.stderr).toContain("protocol 2025-06-18 → 2025-11-25");
    expect(bump.stderr).toMatch(/stubs added for .*getTask/);
    expect(bump.code).toBe(0);
    const after = readFileSync(handlersPath, "utf8");
    // Remove what generate inserted; what remains is exactly what the user had.
    const inserted =
      /^(\s*\/\/ [a-z/_]+: new in protocol 2025-11-25;.*|\s*\w+: notImplemented\("[^"]+"\),?)\n/gm;
    // notImplemented joined the scaffold's import of the same module: one import line, as before.
    const merged = 'import { notImplemented, type ServerHandlers } from "../generated/server.js";\n';
    expect(after).toContain(merged);
    const unmerged = 'import type { ServerHandlers } from "../generated/server.js";\n';
    expect(after.replace(inserted, "").replace(merged, unmerged)).toBe(edited);
    expect(after).toContain('getTask: notImplemented("tasks/get")');
    expect(JSON.parse(readFileSync(join(dir, "mcp-codegen.json"), "utf8")).protocol).toBe("2025-11-25");
    expect(readFileSync(join(dir, "generated/protocol.ts"), "utf8")).toContain(
      'PROTOCOL_VERSION = "2025-11-25"',
    );
    must(`${dir}/node_modules/.bin/tsc`, ["--noEmit", "-p", "tsconfig.json"], dir);
  });

  it("a second generate changes nothing, and --check agrees", () => {
    const before = tree(dir);
    const again = cli(["generate"]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain("nothing to change");
    expect(tree(dir)).toEqual(before);
    expect(cli(["generate", "--check"]).code).toBe(0);
    writeFileSync(join(dir, "generated/types.ts"), "// stale\n");
    const stale = cli(["generate", "--check"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("generated/types.ts");
    expect(cli(["generate"]).code).toBe(0);
  });

  it("a tool added to the contract gets a stub, a removed one is a tsc error at its handler, and --check catches a contract not regenerated", () => {
    const contractPath = join(dir, "contract.yaml");
    const handlersPath = join(dir, "src/handlers.ts");
    const contract = readFileSync(contractPath, "utf8");
    const handlers = readFileSync(handlersPath, "utf8");
    const multiply = [
      "  multiply:",
      "    inputSchema:",
      "      type: object",
      "      properties: { a: { type: number }, b: { type: number } }",
      "      required: [a, b]",
      "    outputSchema:",
      "      type: object",
      "      properties: { product: { type: number } }",
      "      required: [product]",
      "",
      "prompts:",
    ].join("\n");
    writeFileSync(contractPath, contract.replace("\nprompts:", `\n${multiply}`));
    const stale = cli(["generate", "--check"]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain("generated/contract/server.ts");
    const added = cli(["generate"]);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain("stubs added for tools.multiply (new in contract.yaml)");
    const withStub = readFileSync(handlersPath, "utf8");
    // In the file's style (a blank line between the tools, trailing commas), a comment above.
    const inserted =
      '\n\n    // tool multiply: new in the contract; write it.\n    multiply: (_args, _ctx) => { throw new Error("tool multiply is not implemented yet"); },';
    expect(withStub).toContain(inserted);
    // Only inserted: the user's text is all still there, in order.
    expect(withStub.replace(inserted, "")).toBe(handlers);
    must(`${dir}/node_modules/.bin/tsc`, ["--noEmit", "-p", "tsconfig.json"], dir);
    expect(cli(["generate"]).stderr).toContain("nothing to change");

    const greet = contract.indexOf("  greet:\n");
    writeFileSync(
      contractPath,
      contract.slice(0, greet) + contract.slice(contract.indexOf("\nprompts:") + 1),
    );
    expect(cli(["generate"]).code).toBe(0);
    const typed = run(`${dir}/node_modules/.bin/tsc`, ["--noEmit", "-p", "tsconfig.json"], dir);
    expect(typed.code).not.toBe(0);
    expect(typed.stdout).toMatch(
      /src\/handlers\.ts\(\d+,\d+\): error TS2353: .*'greet' does not exist in type 'ToolHandlers(<DefaultAuth>)?'/,
    );

    writeFileSync(contractPath, contract);
    writeFileSync(handlersPath, handlers);
    expect(cli(["generate"]).code).toBe(0);
    expect(cli(["generate", "--check"]).code).toBe(0);
  }, 240_000);

  it("the rebuilt server answers with the user's edit and stubs answer -32601", async () => {
    must("npm", ["run", "-s", "build"], dir);
    const client = new Client({ name: "new-user", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [`${dir}/dist/src/main.js`],
        stderr: "pipe",
      }),
    );
    try {
      const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
      expect(result.content).toEqual([{ type: "text", text: "Hi there, Ada! (edited)" }]);
      expect(client.getServerCapabilities()?.tasks).toBeUndefined();
      // From 2025-11-25, invalid arguments are a tool execution error the model can read.
      const wrong = await client.callTool({ name: "greet", arguments: { name: 12345 } });
      expect(wrong).toMatchObject({
        isError: true,
        content: [{ type: "text", text: 'Invalid arguments for tool "greet": name: Expected string' }],
      });
    } finally {
      await client.close();
    }
  });

  it("moves on to 2026-07-28 (stateless era): the code compiles unchanged and still serves a 2025 client", async () => {
    const before = readFileSync(join(dir, "src/handlers.ts"), "utf8");
    const bump = cli(["generate", "--protocol", "2026-07-28"]);
    expect(bump.code).toBe(0);
    expect(bump.stderr).toContain("protocol 2025-11-25 → 2026-07-28");
    // Every handler of 2025-11-25 still has a place (the handshake era is served too): nothing to mark.
    expect(bump.stderr).not.toContain("marked as not in");
    expect(readFileSync(join(dir, "src/handlers.ts"), "utf8")).toBe(before);
    expect(readdirSync(join(dir, "generated/legacy")).sort()).toEqual([
      "protocol.ts",
      "schemas.ts",
      "types.ts",
      "validators.ts",
    ]);
    must("npm", ["run", "-s", "build"], dir);
    const client = new Client({ name: "new-user", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [`${dir}/dist/src/main.js`],
        stderr: "pipe",
      }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "my-server" });
      const result = await client.callTool({ name: "greet", arguments: { name: "Ada" } });
      expect(result.content).toEqual([{ type: "text", text: "Hi there, Ada! (edited)" }]);
      // A 2025-era client's unknown resource is -32002, as its era asks (not the 2026 -32602).
      await expect(client.readResource({ uri: "info://nope" })).rejects.toMatchObject({ code: -32002 });
    } finally {
      await client.close();
    }
  });

  const bad: [string, () => void, string[], RegExp][] = [
    [
      "an unknown version",
      () => {},
      ["generate", "--protocol", "1999-01-01"],
      /unknown protocol version "1999-01-01"/,
    ],
    [
      "an unreadable config",
      () => writeFileSync(join(dir, "mcp-codegen.json"), "{ nope"),
      ["generate"],
      /mcp-codegen\.json: not valid JSON/,
    ],
    [
      "a handlers file that does not parse",
      () => writeFileSync(join(dir, "src/handlers.ts"), "export const handlers = {\n  callTool(: ,\n"),
      ["generate", "--protocol", "2025-06-18"],
      /src\/handlers\.ts:2:\d+: does not parse/,
    ],
  ];
  it.each(bad)("%s: a clear message, exit 2, no file touched", (_, breakIt, args, message) => {
    const saved = {
      config: readFileSync(join(dir, "mcp-codegen.json")),
      handlers: readFileSync(join(dir, "src/handlers.ts")),
    };
    breakIt();
    const before = tree(dir);
    const r = cli(args);
    expect(r.stderr).toMatch(message);
    expect(r.code).toBe(2);
    expect(tree(dir)).toEqual(before);
    writeFileSync(join(dir, "mcp-codegen.json"), saved.config);
    writeFileSync(join(dir, "src/handlers.ts"), saved.handlers);
  });

  it("init refuses a folder that holds a project, pointing at generate", () => {
    const before = tree(dir);
    const r = run("node", [`${REPO}bin/mcp-codegen.js`, "init", dir], work);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("already holds an mcp-codegen project (mcp-codegen.json)");
    expect(r.stderr).toContain("`mcp-codegen generate`");
    expect(tree(dir)).toEqual(before);
  });
});

describe("a new user's client project", () => {
  it("init --client builds and lists the tools of the server project", () => {
    const dir = join(work, "my-client");
    const created = init([dir, "--client"]);
    expect(created.code, created.stderr).toBe(0);
    install(dir);
    must("npm", ["run", "-s", "build"], dir);
    const out = execFileSync(
      process.execPath,
      ["dist/src/main.js", process.execPath, join(work, "my-server/dist/src/main.js")],
      {
        cwd: dir,
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(out).toContain("connected to my-server (protocol 2025-11-25)");
    expect(out).toContain("tool: greet - Greets someone by name");
  }, 180_000);
});

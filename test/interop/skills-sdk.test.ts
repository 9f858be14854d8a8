/**
 * Our client's Skills side against a skills server we did not write: SDK v2's McpServer with the SDK's
 * own Skills extension (`@modelcontextprotocol/server/ext/skills`) in a child process
 * (test/fixtures/skills/sdk-skills-server.ts): over stdio, where it answers initialize (2025-11-25) and
 * declares the extension there, and over HTTP through its createMcpHandler, which speaks 2026-07-28. The SDK computes the entries (digests, sizes, frontmatter)
 * from test/fixtures/skills/folder; the client lists, loads and reads them, verified, and refuses what a
 * tampering server serves.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SkillVerificationError } from "@mcp-codegen/runtime/client";
import { connectHttp } from "@mcp-codegen/runtime/http-client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FOLDER = "test/fixtures/skills/folder";
const disk = (path: string) => readFileSync(`${REPO}${FOLDER}/${path}`, "utf8");

let client: McpClient | undefined;
let child: ChildProcess | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
  child?.kill();
  child = undefined;
});

async function connect(...extra: string[]): Promise<{ client: McpClient; errors: unknown[] }> {
  const errors: unknown[] = [];
  client = createClient({
    info: { name: "skills-interop", version: "1.0.0" },
    onError: (e) => void errors.push(e),
  });
  await client.connect(
    new StdioClientTransport({
      command: `${REPO}node_modules/.bin/tsx`,
      args: [`${REPO}test/fixtures/skills/sdk-skills-server.ts`, `${REPO}${FOLDER}`, ...extra],
      stderr: "pipe",
    }),
  );
  return { client, errors };
}

describe("SDK v2's skills server", () => {
  it("lists its entries, loads a skill and reads its files, each verified", async () => {
    const { client, errors } = await connect();
    const skills = await client.listSkills();
    expect(skills.map((s) => s.uri)).toEqual([
      "skill://git-basics/SKILL.md",
      "skill://pdf-processing/SKILL.md",
    ]);
    expect(errors).toEqual([]);
    const pdf = skills[1]!;
    expect(pdf.frontmatter).toEqual({
      name: "pdf-processing",
      description: "Extract, fill, and assemble PDF documents",
      license: "Apache-2.0",
      metadata: { author: "example", version: "1.0" },
    });
    expect(await client.getSkill(pdf.uri)).toEqual(pdf);
    const held = await client.loadSkill(pdf);
    expect(held.content.text).toBe(disk("pdf-processing/SKILL.md"));
    expect(held.files).toEqual(["SKILL.md", "references/FORMS.md"]);
    expect((await held.readFile("references/FORMS.md")).text).toBe(
      disk("pdf-processing/references/FORMS.md"),
    );
    const git = await client.loadSkill(skills[0]!);
    expect(git.frontmatter.description).toBe("Everyday git: commit, branch, merge");
  }, 30_000);

  it("refuses a tampered SKILL.md when loading", async () => {
    const { client } = await connect("--tamper", "pdf-processing/SKILL.md");
    const [, pdf] = await client.listSkills();
    const error = await client.loadSkill(pdf!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillVerificationError);
    expect(error).toMatchObject({ refusal: "digest", uri: "skill://pdf-processing/SKILL.md" });
    expect((error as Error).message).toMatch(
      /^skill skill:\/\/pdf-processing\/SKILL.md: the content's digest sha256:[0-9a-f]{64} is not the entry's/,
    );
  }, 30_000);

  it("refuses a tampered supporting file when it is read, after a verified load", async () => {
    const { client } = await connect("--tamper", "pdf-processing/references/FORMS.md");
    const [, pdf] = await client.listSkills();
    const held = await client.loadSkill(pdf!);
    const error = await held.readFile("references/FORMS.md").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SkillVerificationError);
    expect(error).toMatchObject({ refusal: "digest", uri: "skill://pdf-processing/references/FORMS.md" });
  }, 30_000);
});

describe("SDK v2's skills server over HTTP (2026-07-28)", () => {
  async function connectHttpServer(...extra: string[]): Promise<McpClient> {
    child = spawn(
      `${REPO}node_modules/.bin/tsx`,
      [`${REPO}test/fixtures/skills/sdk-skills-server.ts`, `${REPO}${FOLDER}`, "--http", ...extra],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const url = await new Promise<string>((resolve, reject) => {
      let seen = "";
      child!.stdout!.on("data", (chunk: Buffer) => {
        seen += chunk.toString();
        const found = /listening on (\S+)/.exec(seen)?.[1];
        if (found) resolve(found);
      });
      child!.once("exit", (code) => reject(new Error(`the server exited (${code})`)));
    });
    client = createClient({ info: { name: "skills-interop", version: "1.0.0" } });
    await client.connect(await connectHttp(url));
    return client;
  }

  it("lists, loads and reads in the stateless era", async () => {
    const client = await connectHttpServer();
    expect(client.lifecycle).toBe("discover");
    const skills = await client.listSkills();
    expect(skills.map((s) => s.uri)).toEqual([
      "skill://git-basics/SKILL.md",
      "skill://pdf-processing/SKILL.md",
    ]);
    const held = await client.loadSkill(skills[1]!);
    expect((await held.readFile("references/FORMS.md")).text).toBe(
      disk("pdf-processing/references/FORMS.md"),
    );
  }, 30_000);

  it("refuses skills requests locally when the server does not declare the extension", async () => {
    const client = await connectHttpServer("--without-skills");
    await expect(client.listSkills()).rejects.toMatchObject({
      code: -32601,
      message:
        "the server does not offer the io.modelcontextprotocol/skills extension (needed by skills/list)",
    });
  }, 30_000);
});

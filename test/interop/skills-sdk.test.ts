/**
 * Our client's Skills side against a skills server we did not write: SDK v2's McpServer with the SDK's
 * own Skills extension (`@modelcontextprotocol/server/ext/skills`), over stdio in a child process
 * (test/fixtures/skills/sdk-skills-server.ts). The SDK computes the entries (digests, sizes, frontmatter)
 * from test/fixtures/skills/folder; the client lists, loads and reads them, verified, and refuses what a
 * tampering server serves.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SkillVerificationError } from "@mcp-codegen/runtime/client";
import { StdioClientTransport } from "@mcp-codegen/runtime/node";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type McpClient } from "../../generated/2026-07-28/index.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FOLDER = "test/fixtures/skills/folder";
const disk = (path: string) => readFileSync(`${REPO}${FOLDER}/${path}`, "utf8");

let client: McpClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
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

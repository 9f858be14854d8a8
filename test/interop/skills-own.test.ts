/**
 * This project's client loading skills from this project's server (the skills folder of
 * examples/everything-server, walked by `skillsTable`, served by the `skills` option) over real
 * Streamable HTTP on 127.0.0.1 in 2026-07-28: every entry listed without a file read, a skill loaded
 * (SKILL.md verified by size, digest and frontmatter), each of its files read and verified, a path
 * outside the entry refused; the same skill got by URI; its folder's children read (a file's URI refused).
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SkillVerificationError } from "@mcp-codegen/runtime/client";
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { skillsTable } from "mcp-codegen/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, createServer } from "../../generated/2026-07-28/index.js";
import { StreamableHttpClientTransport } from "../../runtime/http-client/streamable-http.js";

const SKILLS = fileURLToPath(new URL("../../examples/everything-server/skills/", import.meta.url));

/** Every file below `dir`, as paths relative to it. */
function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesOf(path).map((p) => join(name, p)) : [name];
  });
}

describe("this project's client → this project's server: skills (2026-07-28)", () => {
  let http: HttpServerHandle;
  const reads: string[] = [];
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    const server = createServer({
      info: { name: "own-skills", version: "1.0.0" },
      handlers: {},
      skills: await skillsTable(SKILLS),
    });
    http = await serveHttp(server, { port: 0, host: "127.0.0.1" });
    client = createClient({ info: { name: "own-skills-client", version: "1.0.0" } });
    const recording: typeof fetch = async (input, init) => {
      if (typeof init?.body === "string") {
        const body = JSON.parse(init.body) as { method?: string; params?: { uri?: string } };
        if (body.method === "resources/read") reads.push(String(body.params?.uri));
      }
      return fetch(input, init);
    };
    await client.connect(new StreamableHttpClientTransport(new URL(http.url), { fetch: recording }));
  });
  afterAll(async () => {
    await client?.close();
    await http?.close({ timeoutMs: 0 });
  });

  it("lists without reading, loads and verifies every file, refuses a path outside the entry", async () => {
    expect(client.protocolVersion).toBe("2026-07-28");
    const skills = await client.listSkills();
    expect(skills.length).toBeGreaterThan(0);
    expect(reads).toEqual([]);
    const entry = skills[0]!;
    const skill = await client.loadSkill(entry);
    expect(reads).toEqual([entry.uri]);
    const root = entry.uri.slice(0, -"/SKILL.md".length);
    const onDisk = filesOf(join(SKILLS, root.slice("skill://".length))).sort();
    const listed = (entry.resources as readonly { uri: string }[])
      .map((r) => r.uri.slice(root.length + 1))
      .sort();
    expect(listed).toEqual(onDisk);
    for (const path of onDisk.filter((p) => p !== "SKILL.md")) {
      const file = await skill.readFile(path);
      expect(file.uri).toBe(`${root}/${path}`);
    }
    await expect(skill.readFile("../elsewhere.md")).rejects.toBeInstanceOf(SkillVerificationError);
    const got = await client.getSkill(entry.uri);
    expect(got).toEqual(entry);
    // The skill's folder, read without reading a file: each child of it on disk, folders as directories.
    const readsBefore = reads.length;
    const children = await client.readSkillDirectory(root);
    const onDiskChildren = readdirSync(join(SKILLS, root.slice("skill://".length))).sort();
    expect(children.map((c) => c.uri.slice(root.length + 1)).sort()).toEqual(onDiskChildren);
    for (const child of children) {
      const isDir = statSync(join(SKILLS, child.uri.slice("skill://".length))).isDirectory();
      expect(child.mimeType === "inode/directory", child.uri).toBe(isDir);
    }
    expect(reads.length).toBe(readsBefore);
    await expect(client.readSkillDirectory(entry.uri)).rejects.toMatchObject({ code: -32602 });
  });
});

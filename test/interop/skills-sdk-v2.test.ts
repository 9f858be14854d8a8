/**
 * Skills served by a handwritten server (`skillsTable(dir)` from the generator, the `skills` server option)
 * over real Streamable HTTP on 127.0.0.1, read by the official SDK v2 client pinned to 2026-07-28: the
 * declaration in server/discover, skills/list and skills/get (through its generic `request`), directory
 * reads, and every file read back with the digest and size the entry lists, computed here from the bytes
 * on disk. A 2025-era session of the same server reads the files as plain resources.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveHttp } from "@mcp-codegen/runtime/node";
import { Client as ClientV2, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { skillsTable } from "mcp-codegen/skills";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as z from "zod";
import { createServer } from "../../generated/2026-07-28/index.js";

const info = { name: "skills-sdk-v2", version: "1.0.0" };
const dir = mkdtempSync(join(tmpdir(), "mcp-skills-"));
/** Files of the skills folder, by path below it. */
const FILES: Record<string, string | Uint8Array> = {
  "acme/billing/refunds/SKILL.md":
    "---\nname: refunds\ndescription: Process refund requests per policy\nlicense: Apache-2.0\nmetadata:\n  version: '2.1'\n  since: 2024-01-01\n---\n\n# Refunds\n\nPick a template from `templates/`.\n",
  "acme/billing/refunds/templates/email.md": "Dear customer,\n",
  "acme/billing/refunds/templates/regional/eu.md": "EU wording\n",
  // Not UTF-8: served as a base64 blob.
  "acme/billing/refunds/assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x80]),
  // A byte order mark round-trips through UTF-8, so this stays text, BOM and all.
  "acme/billing/refunds/notes.txt": "\ufeffwith a BOM\n",
  "git-workflow/SKILL.md":
    "---\nname: git-workflow\ndescription: Branch and commit conventions\n---\nUse short branches.\n",
};
const SKILL_MD = "acme/billing/refunds/SKILL.md";
const bytesOf = (path: string) => readFileSync(join(dir, path));
const digest = (data: Uint8Array) => `sha256:${createHash("sha256").update(data).digest("hex")}`;
const uriOf = (path: string) => `skill://${path}`;

const Skills = z.looseObject({ skills: z.array(z.any()), nextCursor: z.string().optional() });
const OneSkill = z.looseObject({ skill: z.any() });
const Children = z.looseObject({ resources: z.array(z.any()), nextCursor: z.string().optional() });

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(skillsDir: string, directoryRead = true): Promise<string> {
  const server = createServer({
    info,
    handlers: {},
    skills: await skillsTable(skillsDir, { directoryRead }),
  });
  const http = await serveHttp(server, { port: 0, host: "127.0.0.1" });
  closers.push(() => http.close());
  return http.url;
}

/** The SDK v2 client pinned to 2026-07-28, or in its 2025-era (initialize) mode. */
async function sdkClient(url: string, era: "2026-07-28" | "legacy"): Promise<ClientV2> {
  const client = new ClientV2(
    { name: "sdk-v2", version: "1.0.0" },
    { versionNegotiation: { mode: era === "legacy" ? "legacy" : { pin: era } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  closers.push(() => client.close());
  return client;
}

/** One stateless-era request over plain HTTP, to see the wire as sent. */
async function post(
  url: string,
  method: string,
  params: Record<string, unknown>,
): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: Record<string, unknown> } }> {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  return { status: response.status, body: await response.json() };
}

let url: string;
let client: ClientV2;
beforeAll(async () => {
  for (const [path, content] of Object.entries(FILES)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  url = await serve(dir);
  client = await sdkClient(url, "2026-07-28");
});

describe("skills read by the SDK v2 client at 2026-07-28 over HTTP", () => {
  it("declares the extension with directoryRead, and resources, in server/discover", () => {
    const capabilities = client.getServerCapabilities() as Record<string, unknown>;
    expect(capabilities.extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
    expect(capabilities.resources).toBeDefined();
  });

  it("answers resultType complete on skills/list, skills/get and directory reads (the SDK keeps it to itself)", async () => {
    for (const [method, params] of [
      ["skills/list", {}],
      ["skills/get", { uri: uriOf(SKILL_MD) }],
      ["resources/directory/read", { uri: "skill://git-workflow" }],
    ] as const) {
      const { status, body } = await post(url, method, params);
      expect([method, status, body.result?.resultType]).toEqual([method, 200, "complete"]);
    }
  });

  it("skills/list: every skill, frontmatter verbatim (a date stays a string), every file with the digest and size of its bytes", async () => {
    const result = await client.request({ method: "skills/list", params: {} }, Skills);
    expect(result).toMatchObject({
      ttlMs: expect.any(Number),
      cacheScope: "private",
    });
    expect(result.nextCursor).toBeUndefined();
    expect(result.skills.map((s) => s.uri)).toEqual([uriOf(SKILL_MD), uriOf("git-workflow/SKILL.md")]);
    const [refunds] = result.skills;
    expect(refunds.frontmatter).toEqual({
      name: "refunds",
      description: "Process refund requests per policy",
      license: "Apache-2.0",
      metadata: { version: "2.1", since: "2024-01-01" },
    });
    const own = Object.keys(FILES)
      .filter((p) => p.startsWith("acme/"))
      .sort();
    expect(refunds.resources).toEqual(
      own.map((p) => ({ uri: uriOf(p), digest: digest(bytesOf(p)), size: bytesOf(p).length })),
    );
  });

  it("skills/get: the listed entry, no cursor; an unknown URI is -32602", async () => {
    const { skills } = await client.request({ method: "skills/list", params: {} }, Skills);
    const got = await client.request({ method: "skills/get", params: { uri: uriOf(SKILL_MD) } }, OneSkill);
    expect(got.skill).toEqual(skills[0]);
    expect(got).toMatchObject({ ttlMs: expect.any(Number), cacheScope: "private" });
    expect(got.nextCursor).toBeUndefined();
    await expect(
      client.request({ method: "skills/get", params: { uri: "skill://nope/SKILL.md" } }, OneSkill),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("resources/directory/read: a skill root's and a folder's children, folders as inode/directory; a file is -32602", async () => {
    const root = await client.request(
      { method: "resources/directory/read", params: { uri: "skill://acme/billing/refunds" } },
      Children,
    );
    expect(root.resources).toEqual([
      { uri: uriOf(SKILL_MD), name: "SKILL.md", mimeType: "text/markdown", size: bytesOf(SKILL_MD).length },
      { uri: "skill://acme/billing/refunds/assets", name: "assets", mimeType: "inode/directory" },
      {
        uri: uriOf("acme/billing/refunds/notes.txt"),
        name: "notes.txt",
        mimeType: "text/plain",
        size: bytesOf("acme/billing/refunds/notes.txt").length,
      },
      { uri: "skill://acme/billing/refunds/templates", name: "templates", mimeType: "inode/directory" },
    ]);
    const templates = await client.request(
      { method: "resources/directory/read", params: { uri: "skill://acme/billing/refunds/templates" } },
      Children,
    );
    expect(templates.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["email.md", "text/markdown"],
      ["regional", "inode/directory"],
    ]);
    // The prefix folders above a skill are directories too.
    const prefix = await client.request(
      { method: "resources/directory/read", params: { uri: "skill://acme/billing" } },
      Children,
    );
    expect(prefix.resources.map((r) => r.uri)).toEqual(["skill://acme/billing/refunds"]);
    for (const uri of [uriOf(SKILL_MD), "skill://acme/billing/none"])
      await expect(
        client.request({ method: "resources/directory/read", params: { uri } }, Children),
      ).rejects.toMatchObject({ code: -32602 });
  });

  it("resources/read: each listed file's bytes match its digest and size (text as UTF-8, blobs base64)", async () => {
    const { skills } = await client.request({ method: "skills/list", params: {} }, Skills);
    for (const file of skills.flatMap(
      (s) => s.resources as { uri: string; digest: string; size: number }[],
    )) {
      const [content] = (await client.readResource({ uri: file.uri })).contents;
      const bytes =
        "text" in content!
          ? Buffer.from(content.text, "utf8")
          : Buffer.from(content!.blob as string, "base64");
      expect([file.uri, digest(bytes), bytes.length]).toEqual([file.uri, file.digest, file.size]);
    }
    const [logo] = (await client.readResource({ uri: uriOf("acme/billing/refunds/assets/logo.png") }))
      .contents;
    expect(logo).toMatchObject({ mimeType: "image/png", blob: expect.any(String) });
    const [md] = (await client.readResource({ uri: uriOf(SKILL_MD) })).contents;
    expect(md).toMatchObject({ mimeType: "text/markdown", text: FILES[SKILL_MD] });
    await expect(
      client.readResource({ uri: "skill://acme/billing/refunds/missing.md" }),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("resources/list: each SKILL.md, named and described by its frontmatter", async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([
      {
        uri: uriOf(SKILL_MD),
        name: "refunds",
        description: "Process refund requests per policy",
        mimeType: "text/markdown",
        size: bytesOf(SKILL_MD).length,
      },
      {
        uri: uriOf("git-workflow/SKILL.md"),
        name: "git-workflow",
        description: "Branch and commit conventions",
        mimeType: "text/markdown",
        size: bytesOf("git-workflow/SKILL.md").length,
      },
    ]);
  });
});

describe("skills to a 2025-11-25 session of the SDK v2 client", () => {
  it("reads skill files as ordinary resources; skills/* is -32601 and not declared", async () => {
    const old = await sdkClient(url, "legacy");
    expect((old.getServerCapabilities() as Record<string, unknown>).extensions).toBeUndefined();
    const [guide] = (await old.readResource({ uri: uriOf("acme/billing/refunds/templates/email.md") }))
      .contents;
    expect(guide).toMatchObject({ text: "Dear customer,\n", mimeType: "text/markdown" });
    expect((await old.listResources()).resources.map((r) => r.name)).toEqual(["refunds", "git-workflow"]);
    await expect(old.request({ method: "skills/list", params: {} }, Skills)).rejects.toMatchObject({
      code: -32601,
    });
    // (-32002 on the wire; this SDK reports a 2025-era -32002 as its ResourceNotFoundError.)
    await expect(old.readResource({ uri: "skill://nope/SKILL.md" })).rejects.toMatchObject({
      message: expect.stringContaining("Resource not found: skill://nope/SKILL.md"),
    });
  });
});

describe("a listing larger than a page", () => {
  it("skills/list pages whole entries until nextCursor is gone; without directoryRead the method is -32601", async () => {
    const many = mkdtempSync(join(tmpdir(), "mcp-skills-many-"));
    closers.push(async () => rmSync(many, { recursive: true, force: true }));
    const names = Array.from({ length: 120 }, (_, i) => `skill-${String(i).padStart(3, "0")}`);
    for (const name of names) {
      mkdirSync(join(many, name));
      writeFileSync(join(many, name, "SKILL.md"), `---\nname: ${name}\ndescription: number ${name}\n---\n`);
    }
    const pagedUrl = await serve(many, false);
    const paged = await sdkClient(pagedUrl, "2026-07-28");
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await paged.request({ method: "skills/list", params: cursor ? { cursor } : {} }, Skills);
      for (const s of page.skills) expect(s.resources).toHaveLength(1);
      seen.push(...page.skills.map((s) => s.frontmatter.name as string));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(names);
    expect((paged.getServerCapabilities() as Record<string, unknown>).extensions).toEqual({
      "io.modelcontextprotocol/skills": {},
    });
    const refused = await post(pagedUrl, "resources/directory/read", { uri: `skill://${names[0]}` });
    expect(refused.body.error).toMatchObject({ code: -32601 });
  });
});

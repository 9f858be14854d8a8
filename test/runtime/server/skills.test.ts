/**
 * The runtime's serving of a skills table beside a server's own resources, over real HTTP on 127.0.0.1
 * (stateless 2026-07-28 requests on the raw wire): the SKILL.md entries on the first page of the
 * server's own paginated resources/list, its cursors passed through; reads routed to the skill files or
 * to its handler; directory reads paginated; bad params answered -32602.
 */
import { type HttpServerHandle, serveHttp } from "@mcp-codegen/runtime/node";
import { notImplemented, type SkillsTable, serveContract } from "@mcp-codegen/runtime/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, errors, type ServerHandlers } from "../../../generated/2026-07-28/index.js";
import { answerOf } from "../../fixtures/scale/stateless-call.js";

const V = "2026-07-28";
const DIGEST = `sha256:${"0".repeat(64)}`;
/** A skill whose `many` folder has 150 files (a table written by hand: the runtime serves what it is given). */
const CHILDREN = Array.from({ length: 150 }, (_, i) => `f${String(i).padStart(3, "0")}.txt`);
const TABLE: SkillsTable = {
  directoryRead: true,
  skills: [
    {
      uri: "skill://big/SKILL.md",
      frontmatter: { name: "big", description: "many files" },
      resources: [
        { uri: "skill://big/SKILL.md", digest: DIGEST, size: 3 },
        ...CHILDREN.map((c) => ({ uri: `skill://big/many/${c}`, digest: DIGEST, size: 1 })),
      ],
    },
  ],
  files: {
    "skill://big/SKILL.md": { mimeType: "text/markdown", text: "---\n" },
    ...Object.fromEntries(
      CHILDREN.map((c) => [`skill://big/many/${c}`, { mimeType: "text/plain", text: "x" }]),
    ),
  },
  directories: {
    "skill://big": [
      { uri: "skill://big/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: 3 },
      { uri: "skill://big/many", name: "many", mimeType: "inode/directory" },
    ],
    "skill://big/many": CHILDREN.map((c) => ({
      uri: `skill://big/many/${c}`,
      name: c,
      mimeType: "text/plain",
      size: 1,
    })),
  },
};

const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

async function serve(handlers: ServerHandlers, skills: SkillsTable | undefined = TABLE): Promise<string> {
  const server = createServer({
    info: { name: "skills", version: "1" },
    handlers,
    ...(skills ? { skills } : {}),
  });
  const http: HttpServerHandle = await serveHttp(server, { port: 0, host: "127.0.0.1" });
  closers.push(() => http.close());
  return http.url;
}

let id = 0;
async function send(url: string, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": method,
      ...(typeof params.uri === "string" && method === "resources/read" ? { "mcp-name": params.uri } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": V,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });
  return answerOf(response.headers.get("content-type"), await response.text()) as {
    result?: Record<string, unknown> & { resources?: { uri: string }[]; nextCursor?: string };
    error?: { code: number; message: string; data?: unknown };
  };
}

describe("skills beside a server's own resources (2026-07-28 over HTTP)", () => {
  let url: string;
  beforeAll(async () => {
    const own = ["test://one", "test://two", "test://three"].map((uri) => ({ uri, name: uri.slice(7) }));
    url = await serve({
      // Two pages of its own, by its own cursor.
      listResources: (params) =>
        params?.cursor === "page-2"
          ? { resources: own.slice(2) }
          : { resources: own.slice(0, 2), nextCursor: "page-2" },
      readResource: (params) => ({ contents: [{ uri: params.uri, text: `own ${params.uri}` }] }),
    });
  });

  it("lists each SKILL.md ahead of the server's first page, and passes its cursors on", async () => {
    const first = await send(url, "resources/list");
    expect(first.result?.resources?.map((r) => r.uri)).toEqual([
      "skill://big/SKILL.md",
      "test://one",
      "test://two",
    ]);
    expect(first.result?.nextCursor).toBe("page-2");
    const second = await send(url, "resources/list", { cursor: "page-2" });
    expect(second.result?.resources?.map((r) => r.uri)).toEqual(["test://three"]);
    expect(second.result?.nextCursor).toBeUndefined();
  });

  it("reads a skill file from the table and any other URI through the server's handler", async () => {
    expect(
      (await send(url, "resources/read", { uri: "skill://big/many/f007.txt" })).result?.contents,
    ).toEqual([{ uri: "skill://big/many/f007.txt", mimeType: "text/plain", text: "x" }]);
    expect((await send(url, "resources/read", { uri: "test://two" })).result?.contents).toEqual([
      { uri: "test://two", text: "own test://two" },
    ]);
  });

  it("pages a directory of 150 children: 100, then 50 by the cursor; a bad cursor is -32602", async () => {
    const first = await send(url, "resources/directory/read", { uri: "skill://big/many" });
    expect(first.result?.resources).toHaveLength(100);
    expect(first.result?.resultType).toBe("complete");
    const second = await send(url, "resources/directory/read", {
      uri: "skill://big/many",
      cursor: first.result?.nextCursor,
    });
    expect(second.result?.resources).toHaveLength(50);
    expect(second.result?.nextCursor).toBeUndefined();
    expect([...first.result!.resources!, ...second.result!.resources!].map((r) => r.uri)).toEqual(
      CHILDREN.map((c) => `skill://big/many/${c}`),
    );
    const bad = await send(url, "resources/directory/read", { uri: "skill://big/many", cursor: "nope" });
    expect(bad.error?.code).toBe(-32602);
  });

  it.each([
    ["skills/get", {}, "uri must be a string"],
    ["skills/get", { uri: "skill://big" }, "No skill is served at skill://big"],
    ["skills/list", { cursor: 5 }, "cursor must be a string"],
    ["skills/list", { cursor: "mcpc1.bad" }, "Invalid cursor"],
    [
      "resources/directory/read",
      { uri: "skill://big/SKILL.md" },
      "skill://big/SKILL.md is not a directory resource",
    ],
    ["resources/directory/read", { uri: "skill://other" }, "No directory is served at skill://other"],
  ])("%s %j is -32602: %s", async (method, params, message) => {
    const { error } = await send(url, method, params);
    expect(error).toMatchObject({ code: -32602, message: expect.stringContaining(message) });
  });
});

describe("skills on a server whose resource handlers are stubs", () => {
  it("lists and reads the skills alone; another URI is -32602 with the URI", async () => {
    const url = await serve({
      listResources: notImplemented("resources/list"),
      readResource: notImplemented("resources/read"),
    });
    expect((await send(url, "resources/list")).result?.resources?.map((r) => r.uri)).toEqual([
      "skill://big/SKILL.md",
    ]);
    expect((await send(url, "resources/list", { cursor: "x" })).error?.code).toBe(-32602);
    expect(await send(url, "resources/read", { uri: "test://gone" })).toMatchObject({
      error: { code: -32602, message: "Resource not found: test://gone", data: { uri: "test://gone" } },
    });
    const discovered = await send(url, "server/discover");
    expect(discovered.result?.capabilities).toMatchObject({
      resources: {},
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
    });
  });
});

describe("a contract declaring only skills (what contractHandlers passes, no skills option)", () => {
  it("carries the table to the server on its handlers: declared, listed, read", async () => {
    const handlers = serveContract(
      { tools: {}, prompts: {}, resources: {}, resourceTemplates: {}, skills: TABLE },
      {},
      { argumentsErrorIsProtocolError: () => false, resourceNotFound: errors.resourceNotFound },
    );
    expect(Object.keys(handlers).sort()).toEqual(["listResources", "readResource"]);
    const url = await serve(handlers as ServerHandlers, undefined);
    expect((await send(url, "server/discover")).result?.capabilities).toMatchObject({
      extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } },
    });
    expect((await send(url, "resources/list")).result?.resources?.map((r) => r.uri)).toEqual([
      "skill://big/SKILL.md",
    ]);
    expect((await send(url, "skills/get", { uri: "skill://big/SKILL.md" })).result?.skill).toEqual(
      TABLE.skills[0],
    );
    expect((await send(url, "resources/read", { uri: "skill://none" })).error).toMatchObject({
      code: -32602,
      data: { uri: "skill://none" },
    });
  });
});

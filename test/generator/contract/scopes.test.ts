/**
 * Scopes in a contract: `auth.scopes` and an item's `scopes` read into the model (kept off the wire),
 * every malformed list refused with the file and the place, and the emitted tables and
 * `scopesSupported` carrying them, byte for byte the same on every run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { canonicalSha256, loadContract, loadContractText } from "../../../generator/contract/load.js";

const root = mkdtempSync(join(tmpdir(), "mcp-contract-scopes-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The list `scopesSupported` is set to in an emitted server.ts (however the formatter wrapped it). */
const supported = (server: string): unknown => {
  const list = /export const scopesSupported: readonly string\[\] = (\[[^\]]*\]);/.exec(server)?.[1];
  return list === undefined ? undefined : JSON.parse(list.replace(/,\s*\]$/, "]"));
};

const TOOL = "inputSchema: { type: object }";
const SCOPED = `auth:
  scopes: [mcp]
tools:
  read: { ${TOOL}, scopes: ["notes:read"] }
  write: { ${TOOL}, scopes: ["notes:write", "notes:read"] }
  open: { ${TOOL} }
prompts:
  p: { scopes: [prompts] }
resources:
  r: { uri: "a://r", scopes: [admin] }
resourceTemplates:
  t: { uriTemplate: "a://t/{x}", scopes: ["notes:read", "z"] }
`;

describe("scopes in the contract", () => {
  it("reads auth.scopes and each item's scopes, and keeps them off the wire", async () => {
    const contract = await loadContractText(SCOPED, "contract.yaml");
    expect(contract.auth).toEqual({ scopes: ["mcp"] });
    expect(contract.tools.map((t) => [t.name, t.scopes])).toEqual([
      ["read", ["notes:read"]],
      ["write", ["notes:write", "notes:read"]],
      ["open", undefined],
    ]);
    expect(contract.prompts[0]!.scopes).toEqual(["prompts"]);
    expect(contract.resources[0]!.scopes).toEqual(["admin"]);
    expect(contract.resourceTemplates[0]!.scopes).toEqual(["notes:read", "z"]);
    for (const item of [
      ...contract.tools,
      ...contract.prompts,
      ...contract.resources,
      ...contract.resourceTemplates,
    ])
      expect(item.definition).not.toHaveProperty("scopes");
  });

  it("hashes scopes when declared, and leaves the hash of a contract without them as it was", async () => {
    const plain = await loadContractText(`tools:\n  open: { ${TOOL} }\n`, "c.yaml");
    const scoped = await loadContractText(`tools:\n  open: { ${TOOL}, scopes: [a] }\n`, "c.yaml");
    const other = await loadContractText(`tools:\n  open: { ${TOOL}, scopes: [b] }\n`, "c.yaml");
    const authed = await loadContractText(`auth: {}\ntools:\n  open: { ${TOOL} }\n`, "c.yaml");
    // `scopes: []` declares nothing.
    const empty = await loadContractText(`tools:\n  open: { ${TOOL}, scopes: [] }\n`, "c.yaml");
    expect(new Set([plain, scoped, other, authed].map((c) => c.sha256)).size).toBe(4);
    expect(empty.sha256).toBe(plain.sha256);
    expect(authed.auth).toEqual({ scopes: [] });
    // The canonical hash of the declarations alone, as before scopes existed.
    const declarations = {
      tools: plain.tools.map((t) => t.definition),
      prompts: [],
      resources: [],
      resourceTemplates: [],
    };
    expect(plain.sha256).toBe(canonicalSha256(declarations));
    expect(empty.sha256).toBe(canonicalSha256(declarations));
  });

  const refusals: [string, string, string][] = [
    [
      "a list",
      `tools:\n  t: { ${TOOL}, scopes: read }\n`,
      'tools.t.scopes: must be a list of OAuth scopes (scopes: ["notes:read"])',
    ],
    [
      "strings",
      `tools:\n  t: { ${TOOL}, scopes: [1] }\n`,
      "tools.t.scopes[0]: must be a string (an OAuth scope)",
    ],
    [
      "non-empty",
      `prompts:\n  p: { scopes: [ok, ""] }\n`,
      "prompts.p.scopes[1]: is empty: a scope has at least one character",
    ],
    [
      "without a space",
      `resources:\n  r: { uri: "a://b", scopes: ["read write"] }\n`,
      'resources.r.scopes[0]: "read write" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without space, " or \\)',
    ],
    [
      "without a quote",
      `resourceTemplates:\n  t: { uriTemplate: "a://{x}", scopes: ['say"hi'] }\n`,
      'resourceTemplates.t.scopes[0]: "say\\"hi" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without space, " or \\)',
    ],
    [
      "without a backslash",
      `tools:\n  t: { ${TOOL}, scopes: ['a\\b'] }\n`,
      'tools.t.scopes[0]: "a\\\\b" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without space, " or \\)',
    ],
    [
      "ASCII",
      `tools:\n  t: { ${TOOL}, scopes: ["notés"] }\n`,
      'tools.t.scopes[0]: "notés" is not an OAuth scope (RFC 6749 §3.3: printable ASCII without space, " or \\)',
    ],
    ["each once", `tools:\n  t: { ${TOOL}, scopes: [a, b, a] }\n`, 'tools.t.scopes[2]: "a" is listed twice'],
    [
      "never offline_access",
      `auth: { scopes: [offline_access] }\ntools:\n  t: { ${TOOL} }\n`,
      "auth.scopes[0]: offline_access asks for a refresh token; no request can require it",
    ],
    [
      "auth an object",
      `auth: [mcp]\ntools:\n  t: { ${TOOL} }\n`,
      "auth: must be an object: auth: { scopes: [...] }",
    ],
    [
      "auth's own fields",
      `auth: { scope: mcp }\ntools:\n  t: { ${TOOL} }\n`,
      "auth.scope: unknown field (allowed: scopes)",
    ],
    [
      "auth.scopes a list",
      `auth: { scopes: "a b" }\ntools:\n  t: { ${TOOL} }\n`,
      'auth.scopes: must be a list of OAuth scopes (scopes: ["notes:read"])',
    ],
  ];
  for (const [rule, yaml, message] of refusals) {
    it(`refuses scopes that are not ${rule}, naming the file and the place`, async () => {
      await expect(loadContractText(yaml, "contract.yaml")).rejects.toThrow(`contract.yaml: ${message}`);
    });
  }

  it("takes auth from one file of a folder, and refuses it in two", async () => {
    const dir = join(root, "folder");
    mkdirSync(dir);
    writeFileSync(join(dir, "a.yaml"), `auth: { scopes: [mcp] }\ntools:\n  t: { ${TOOL} }\n`);
    writeFileSync(join(dir, "b.yaml"), `prompts:\n  p: { scopes: [x] }\n`);
    expect((await loadContract(dir, "contract")).auth).toEqual({ scopes: ["mcp"] });
    writeFileSync(join(dir, "c.yaml"), "auth: {}\n");
    await expect(loadContract(dir, "contract")).rejects.toThrow(
      "contract/c.yaml: auth: declared twice (also in contract/a.yaml)",
    );
  });

  it("emits the scopes into the tables and scopesSupported, sorted and the same on every run", async () => {
    const options = { protocolVersion: "2025-11-25" };
    const once = await emitContract(await loadContractText(SCOPED, "contract.yaml"), options);
    const again = await emitContract(await loadContractText(SCOPED, "contract.yaml"), options);
    expect(again).toEqual(once);
    const tables = once["tables.js"]!;
    expect(tables).toContain('scopes: ["notes:write", "notes:read"]');
    expect(tables).toContain('scopes: ["prompts"]');
    expect(tables).toContain('scopes: ["admin"]');
    expect(tables).toContain('scopes: ["notes:read", "z"]');
    expect(tables).toContain('auth: { "scopes": ["mcp"] }');
    expect(tables.match(/scopes:/g)).toHaveLength(5);
    expect(supported(once["server.ts"]!)).toEqual([
      "admin",
      "mcp",
      "notes:read",
      "notes:write",
      "prompts",
      "z",
    ]);
    expect(once["server.ts"]).toContain("export type DefaultAuth = AuthInfo;");

    const open = await emitContract(await loadContractText(`tools:\n  t: { ${TOOL} }\n`, "c.yaml"), options);
    expect(open["tables.js"]).not.toContain("scopes");
    expect(open["tables.js"]).not.toContain("auth");
    expect(supported(open["server.ts"]!)).toEqual([]);
    expect(open["server.ts"]).toContain("export type DefaultAuth = AuthInfo | undefined;");
  });
});

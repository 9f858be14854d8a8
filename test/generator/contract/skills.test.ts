/**
 * A contract's `skills:` folder read by the contract compiler (generator/contract/skills.ts): the table it
 * makes from real files (digests and sizes over the raw bytes, computed here independently; text or
 * blob; mime types; directories), and every mistake refused as a ContractError naming the file and field.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { ContractError, loadContract } from "../../../generator/contract/load.js";
import { skillsTable } from "../../../generator/contract/skills.js";

const root = mkdtempSync(join(tmpdir(), "mcp-contract-skills-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
/** Writes `files` (path below the folder → content) into a new folder and returns its path. */
function folder(files: Record<string, string | Uint8Array>): string {
  const dir = join(root, String(n++));
  mkdirSync(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
const skillMd = (name: string, extra = "") =>
  `---\nname: ${name}\ndescription: does ${name}\n${extra}---\nBody\n`;
const sha = (data: string | Uint8Array) => `sha256:${createHash("sha256").update(data).digest("hex")}`;

/** The ContractError `promise` rejects with (it must reject with one). */
async function refusal(promise: Promise<unknown>): Promise<ContractError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ContractError);
  return error as ContractError;
}

describe("skillsTable", () => {
  it("lists each skill with every file below it (nested skills' too), digested over the raw bytes", async () => {
    const binary = new Uint8Array([0, 0xff, 0xfe, 0x80]);
    const dir = folder({
      "pdf/SKILL.md": skillMd("pdf"),
      "pdf/forms/FORMS.md": "forms\n",
      "pdf/logo.png": binary,
      "pdf/inner/tables/SKILL.md": skillMd("tables"),
      "acme/billing/refunds/SKILL.md": skillMd("refunds"),
      "acme/README.txt": "not in any skill: not served",
    });
    const table = await skillsTable(dir);
    expect(table.skills.map((s) => s.uri)).toEqual([
      "skill://acme/billing/refunds/SKILL.md",
      "skill://pdf/SKILL.md",
      "skill://pdf/inner/tables/SKILL.md",
    ]);
    const pdf = table.skills[1]!;
    expect(pdf.resources).toEqual([
      { uri: "skill://pdf/SKILL.md", digest: sha(skillMd("pdf")), size: skillMd("pdf").length },
      { uri: "skill://pdf/forms/FORMS.md", digest: sha("forms\n"), size: 6 },
      {
        uri: "skill://pdf/inner/tables/SKILL.md",
        digest: sha(skillMd("tables")),
        size: skillMd("tables").length,
      },
      { uri: "skill://pdf/logo.png", digest: sha(binary), size: 4 },
    ]);
    expect(table.files["skill://pdf/logo.png"]).toEqual({
      mimeType: "image/png",
      blob: Buffer.from(binary).toString("base64"),
    });
    expect(table.files["skill://pdf/forms/FORMS.md"]).toEqual({ mimeType: "text/markdown", text: "forms\n" });
    expect(Object.keys(table.files)).not.toContain("skill://acme/README.txt");
    expect(table.directories["skill://acme"]).toEqual([
      { uri: "skill://acme/billing", name: "billing", mimeType: "inode/directory" },
    ]);
    expect(table.directories["skill://pdf"]!.map((c) => [c.name, c.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["forms", "inode/directory"],
      ["inner", "inode/directory"],
      ["logo.png", "image/png"],
    ]);
    expect(table.directoryRead).toBe(true);
  });

  it("keeps the frontmatter verbatim: YAML 1.2 core, a date stays a string, octal stays a number", async () => {
    const dir = folder({
      "a/SKILL.md": skillMd("a", "license: MIT\nmetadata:\n  since: 2024-01-01\n  n: 0o17\n  on: yes\n"),
    });
    const [skill] = (await skillsTable(dir)).skills;
    expect(skill!.frontmatter).toEqual({
      name: "a",
      description: "does a",
      license: "MIT",
      metadata: { since: "2024-01-01", n: 15, on: "yes" },
    });
  });

  it("serves text only when the bytes round-trip through UTF-8 (a BOM does), else a blob", async () => {
    const overlong = new Uint8Array([0xc0, 0xaf]);
    const dir = folder({
      "a/SKILL.md": skillMd("a"),
      "a/bom.txt": "\ufeffhi",
      "a/bad.txt": overlong,
      "a/data.weird": "x",
    });
    const { files } = await skillsTable(dir, { directoryRead: false });
    expect(files["skill://a/bom.txt"]).toEqual({ mimeType: "text/plain", text: "\ufeffhi" });
    expect(files["skill://a/bad.txt"]).toEqual({ mimeType: "text/plain", blob: "wK8=" });
    expect(files["skill://a/data.weird"]).toEqual({ mimeType: "application/octet-stream", text: "x" });
  });

  const refused: [string, Record<string, string | Uint8Array>, string, string][] = [
    ["no frontmatter", { "a/SKILL.md": "# just markdown\n" }, "a/SKILL.md", "has no frontmatter"],
    [
      "a missing name",
      { "a/SKILL.md": "---\ndescription: x\n---\n" },
      "a/SKILL.md: frontmatter.name",
      "is required",
    ],
    [
      "a missing description",
      { "a/SKILL.md": "---\nname: a\n---\n" },
      "a/SKILL.md: frontmatter.description",
      "is required",
    ],
    [
      "a name breaking the naming rules",
      { "Bad--Name/SKILL.md": skillMd("Bad--Name") },
      "Bad--Name/SKILL.md: frontmatter.name",
      "breaks the Agent Skills naming rules",
    ],
    [
      "a name that is not the folder's",
      { "a/SKILL.md": skillMd("b") },
      "a/SKILL.md: frontmatter.name",
      'must be the name of the skill\'s folder, "a"',
    ],
    [
      "a reserved metadata key",
      { "a/SKILL.md": skillMd("a", "metadata:\n  io.modelcontextprotocol/x: 1\n") },
      "a/SKILL.md: frontmatter.metadata.io.modelcontextprotocol/x",
      "reserved for MCP extensions",
    ],
    [
      "a duplicate key",
      { "a/SKILL.md": "---\nname: a\nname: a\ndescription: x\n---\n" },
      "a/SKILL.md",
      "frontmatter is not YAML: Map keys must be unique",
    ],
    [
      "a value JSON cannot hold",
      { "a/SKILL.md": skillMd("a", "weight: .inf\n") },
      "a/SKILL.md: frontmatter.weight",
      "Infinity is not a JSON number",
    ],
    [
      "a tag that makes bytes",
      { "a/SKILL.md": skillMd("a", "blob: !!binary aGk=\n") },
      "a/SKILL.md: frontmatter.blob",
      "is not a JSON value",
    ],
    [
      "a SKILL.md that is not UTF-8",
      { "a/SKILL.md": new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff]) },
      "a/SKILL.md",
      "is not UTF-8 text",
    ],
    ["a SKILL.md in the folder itself", { "SKILL.md": skillMd("x") }, "SKILL.md", "is no skill"],
    ["a folder without skills", { "a/notes.md": "x" }, "", "holds no skill"],
  ];
  it.each(refused)("refuses %s, naming the file and field", async (_, files, where, reason) => {
    const dir = folder(files);
    const error = await refusal(skillsTable(dir, { label: "skills" }));
    expect(error.message).toContain(where ? `skills/${where}` : "skills: ");
    expect(error.message).toContain(reason);
  });

  it("refuses a symbolic link, to a file or to a folder, and a skills folder that is one", async () => {
    const outside = folder({ "secret.txt": "outside the skill" });
    const file = folder({ "a/SKILL.md": skillMd("a") });
    symlinkSync(join(outside, "secret.txt"), join(file, "a", "secret.txt"));
    expect((await refusal(skillsTable(file, { label: "skills" }))).message).toBe(
      "skills/a/secret.txt: is a symbolic link: a skill serves only what is in its folder",
    );
    const dir = folder({ "a/SKILL.md": skillMd("a") });
    symlinkSync(outside, join(dir, "a", "linked"));
    expect((await refusal(skillsTable(dir, { label: "skills" }))).message).toContain(
      "skills/a/linked: is a symbolic link",
    );
    const real = folder({ "a/SKILL.md": skillMd("a") });
    const link = join(root, `link-${n++}`);
    symlinkSync(real, link);
    expect((await refusal(skillsTable(link, { label: "skills" }))).message).toContain(
      "skills: is a symbolic link",
    );
  });

  it("refuses a skill over 512 files or 16 MiB, counting its nested skills' files", async () => {
    const many: Record<string, string> = { "a/SKILL.md": skillMd("a") };
    for (let i = 0; i < 511; i++) many[`a/f/${i}.txt`] = "";
    await expect(skillsTable(folder(many))).resolves.toBeDefined();
    many["a/inner/b/SKILL.md"] = skillMd("b");
    expect((await refusal(skillsTable(folder(many), { label: "skills" }))).message).toBe(
      "skills/a/SKILL.md: the skill has 513 files, more than the 512 the Skills extension allows",
    );
    const big = folder({ "a/SKILL.md": skillMd("a"), "a/big.bin": new Uint8Array(16 * 1024 * 1024) });
    expect((await refusal(skillsTable(big, { label: "skills" }))).message).toMatch(
      /^skills\/a\/SKILL\.md: the skill's files hold \d+ bytes, more than the 16777216 \(16 MiB\)/,
    );
  });
});

describe("skills: in a contract", () => {
  it("reads the folder relative to the contract, into the model and tables.js; directoryRead defaults to true", async () => {
    const dir = folder({ "contract.yaml": "skills: ./skills\n", "skills/a/SKILL.md": skillMd("a") });
    const contract = await loadContract(join(dir, "contract.yaml"), "contract.yaml");
    expect(contract.skills?.skills.map((s) => s.uri)).toEqual(["skill://a/SKILL.md"]);
    expect(contract.skills?.directoryRead).toBe(true);
    const files = await emitContract(contract, { protocolVersion: "2026-07-28" });
    expect(files["tables.js"]).toContain('"skill://a/SKILL.md"');
    expect(files["server.ts"]).toMatch(/Pick<\s*ServerHandlers,\s*"listResources" \| "readResource"\s*>/);
    const off = folder({
      "contract.yaml": "skills: { dir: ./skills, directoryRead: false }\n",
      "skills/a/SKILL.md": skillMd("a"),
    });
    expect((await loadContract(join(off, "contract.yaml"))).skills?.directoryRead).toBe(false);
  });

  it("hashes the skills into the contract's sha256: an edited file changes it", async () => {
    const dir = folder({ "contract.yaml": "skills: ./skills\n", "skills/a/SKILL.md": skillMd("a") });
    const before = (await loadContract(join(dir, "contract.yaml"))).sha256;
    writeFileSync(join(dir, "skills/a/extra.md"), "more");
    expect((await loadContract(join(dir, "contract.yaml"))).sha256).not.toBe(before);
  });

  it.each([
    ["skills: 5\n", "contract.yaml: skills: must be a folder"],
    ["skills: { dir: ./skills, extra: 1 }\n", "contract.yaml: skills.extra: unknown field"],
    [
      "skills: { dir: ./skills, directoryRead: yes }\n",
      "contract.yaml: skills.directoryRead: must be true or false",
    ],
    ["skills: ./missing\n", "missing: skills folder not found"],
  ])("refuses %j", async (yaml, message) => {
    const dir = folder({ "contract.yaml": yaml, "skills/a/SKILL.md": skillMd("a") });
    expect((await refusal(loadContract(join(dir, "contract.yaml"), "contract.yaml"))).message).toContain(
      message,
    );
  });
});

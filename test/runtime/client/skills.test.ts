/**
 * The client side of the Skills extension, by its functions over a recording peer: what is read when
 * (nothing before loading, nothing before a refusal), what is verified (size, digest, frontmatter), what
 * a held skill may read, and the bounds. The same code against real servers: test/interop/skills-sdk.test.ts
 * (SDK v2's skills server) and the conformance suite's sep-2640-client-* scenarios.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SkillVerificationError } from "../../../runtime/client/skill-error.js";
import { getSkill, listSkills, loadSkill, type SkillsPeer } from "../../../runtime/client/skills.js";
import { McpError } from "../../../runtime/jsonrpc/messages.js";
import { MAX_SKILL_BYTES, MAX_SKILL_FILES, type Skill } from "../../../runtime/mcp/skills.js";

const digest = (text: string) => `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
const SKILL_MD =
  "---\nname: pdf-processing\ndescription: Extract PDFs\nmetadata:\n  author: ex\n---\n\nBody.\n";
const FORMS = "Forms.\n";
const URI = "skill://pdf-processing/SKILL.md";
const FORMS_URI = "skill://pdf-processing/references/FORMS.md";

function entryOf(files: Record<string, string>, frontmatter?: Record<string, unknown>): Skill {
  return {
    uri: URI,
    frontmatter: (frontmatter ?? {
      name: "pdf-processing",
      description: "Extract PDFs",
      metadata: { author: "ex" },
    }) as Skill["frontmatter"],
    resources: Object.entries(files).map(([uri, text]) => ({
      uri,
      digest: digest(text),
      size: Buffer.byteLength(text),
    })),
  };
}

interface Recorded extends SkillsPeer {
  reads: string[];
  requests: Array<[string, Record<string, unknown>]>;
  reported: string[];
  served: Record<string, string>;
}

function peer(served: Record<string, string>, pages: Array<Record<string, unknown>> = []): Recorded {
  const p: Recorded = {
    reads: [],
    requests: [],
    reported: [],
    served,
    async request(method, params) {
      p.requests.push([method, params]);
      if (method === "skills/list") {
        const i = params.cursor === undefined ? 0 : Number(params.cursor);
        return pages[i] ?? { skills: [] };
      }
      return { skill: pages[0]?.skill };
    },
    async read(uri) {
      p.reads.push(uri);
      const text = p.served[uri];
      return { contents: text === undefined ? [] : [{ uri, mimeType: "text/markdown", text }] };
    },
    report(error) {
      p.reported.push(error.message);
    },
  };
  return p;
}

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SkillVerificationError);
  return error as SkillVerificationError;
};

describe("listSkills / getSkill", () => {
  it("follows every page, reads no file, and leaves out (and reports) a malformed or repeated entry", async () => {
    const good = entryOf({ [URI]: SKILL_MD });
    const p = peer({ [URI]: SKILL_MD }, [
      {
        skills: [good, { uri: "skill://x/SKILL.md", frontmatter: { name: "x" }, resources: [] }],
        nextCursor: "1",
      },
      { skills: [good, { ...good, uri: "skill://bad/SKILL.md" }], nextCursor: "2" },
      { skills: [] },
    ]);
    const skills = await listSkills(p, {});
    expect(skills).toEqual([good]);
    expect(p.requests.map(([, params]) => params.cursor)).toEqual([undefined, "1", "2"]);
    expect(p.reads).toEqual([]);
    expect(p.reported).toEqual([
      expect.stringContaining("skill://x/SKILL.md: frontmatter lacks a name or description"),
      expect.stringContaining("listed twice"),
      expect.stringContaining('frontmatter name "pdf-processing" is not the skill\'s folder name "bad"'),
    ]);
  });

  it("is bounded: a repeated cursor, or pages without end, is an error", async () => {
    await expect(listSkills(peer({}, [{ skills: [], nextCursor: "0" }]), {})).rejects.toThrow(
      /repeats the cursor/,
    );
    const endless: SkillsPeer = {
      request: async (_m, params) => ({ skills: [], nextCursor: String(Number(params.cursor ?? 0) + 1) }),
      read: async () => ({}),
      report: () => {},
    };
    await expect(listSkills(endless, {})).rejects.toThrow(/more than 1000 pages/);
    await expect(listSkills(peer({}, [{ nope: [] }]), {})).rejects.toBeInstanceOf(McpError);
  });

  it("getSkill checks the entry it is answered, and that it is the one asked for", async () => {
    const good = entryOf({ [URI]: SKILL_MD });
    expect(await getSkill(peer({}, [{ skill: good }]), URI, {})).toEqual(good);
    const other = await refusal(getSkill(peer({}, [{ skill: good }]), "skill://other/SKILL.md", {}));
    expect(other.message).toContain("answered the entry of skill://pdf-processing/SKILL.md");
    const bad = await refusal(
      getSkill(
        peer({}, [{ skill: { ...good, resources: [{ uri: URI, digest: "md5:x", size: 1 }] } }]),
        URI,
        {},
      ),
    );
    expect(bad.refusal).toBe("entry");
    expect(bad.message).toContain("digest is not sha256:");
  });
});

describe("loadSkill", () => {
  it("reads SKILL.md only when loading, verifies it, and holds the skill", async () => {
    const p = peer({ [URI]: SKILL_MD, [FORMS_URI]: FORMS });
    const entry = entryOf({ [URI]: SKILL_MD, [FORMS_URI]: FORMS });
    const held = await loadSkill(p, entry, {});
    expect(p.reads).toEqual([URI]);
    expect(held.content.text).toBe(SKILL_MD);
    expect(held.files).toEqual(["SKILL.md", "references/FORMS.md"]);
    expect((await held.readFile("references/FORMS.md")).text).toBe(FORMS);
    expect((await held.readFile("./references/../references/FORMS.md")).text).toBe(FORMS);
    expect((await held.readFile(FORMS_URI)).text).toBe(FORMS);
    // The caller's object changing later changes nothing held.
    (entry.resources as unknown as Array<{ digest: string }>)[1]!.digest = digest("other");
    expect((await held.readFile("references/FORMS.md")).text).toBe(FORMS);
  });

  it("refuses a size mismatch as such, before the digest", async () => {
    const entry = entryOf({ [URI]: SKILL_MD });
    const e = await refusal(loadSkill(peer({ [URI]: `${SKILL_MD}extra` }), entry, {}));
    expect([e.refusal, e.uri]).toEqual(["size", URI]);
    expect(e.message).toContain(
      `read ${Buffer.byteLength(SKILL_MD) + 5} bytes where the entry lists ${Buffer.byteLength(SKILL_MD)}`,
    );
  });

  it("refuses a digest mismatch of the same size", async () => {
    const e = await refusal(
      loadSkill(peer({ [URI]: SKILL_MD.replace("Body.", "Evil.") }), entryOf({ [URI]: SKILL_MD }), {}),
    );
    expect(e.refusal).toBe("digest");
  });

  it("compares the frontmatter field by field, naming the fields that differ", async () => {
    const entry = entryOf(
      { [URI]: SKILL_MD },
      { name: "pdf-processing", description: "Something else", extra: 1, metadata: { author: "ex" } },
    );
    const e = await refusal(loadSkill(peer({ [URI]: SKILL_MD }), entry, {}));
    expect(e.refusal).toBe("frontmatter");
    expect(e.message).toContain('differs from the entry\'s in "description", "extra"');
    const nested = entryOf(
      { [URI]: SKILL_MD },
      { name: "pdf-processing", description: "Extract PDFs", metadata: { author: "ex", x: "y" } },
    );
    expect((await refusal(loadSkill(peer({ [URI]: SKILL_MD }), nested, {}))).message).toContain('"metadata"');
  });

  it("refuses frontmatter beyond the subset unless a full parser is given, and a SKILL.md without any", async () => {
    const flow = "---\nname: pdf-processing\ndescription: Extract PDFs\nmetadata: {author: ex}\n---\n";
    const entry = entryOf({ [URI]: flow });
    const e = await refusal(loadSkill(peer({ [URI]: flow }), entry, {}));
    expect([e.refusal, e.message]).toEqual(["frontmatter", expect.stringContaining("frontmatter line 3")]);
    const held = await loadSkill(peer({ [URI]: flow }), entry, { frontmatterParser: parse });
    expect(held.frontmatter.metadata).toEqual({ author: "ex" });
    const bare = "Just text.\n";
    expect((await refusal(loadSkill(peer({ [URI]: bare }), entryOf({ [URI]: bare }), {}))).message).toContain(
      "has no frontmatter",
    );
  });

  it("refuses entries over the limits, and malformed ones, before reading anything", async () => {
    const many: Skill = {
      ...entryOf({ [URI]: SKILL_MD }),
      resources: Array.from({ length: MAX_SKILL_FILES + 1 }, (_, i) => ({
        uri: i === 0 ? URI : `skill://pdf-processing/f${i}`,
        digest: digest(""),
        size: 0,
      })),
    };
    const large = entryOf({ [URI]: SKILL_MD });
    (large.resources as unknown as Array<{ size: number }>)[0]!.size = MAX_SKILL_BYTES + 1;
    const outside = {
      ...entryOf({ [URI]: SKILL_MD }),
      resources: [
        ...(entryOf({ [URI]: SKILL_MD }).resources as []),
        { uri: "skill://other/x", digest: digest(""), size: 0 },
      ],
    };
    const noSkillMd = entryOf({ [FORMS_URI]: FORMS });
    for (const [entry, refusal_, text] of [
      [many, "limit", "513 files, over the limit of 512"],
      [large, "limit", `over the limit of ${MAX_SKILL_BYTES}`],
      [outside, "entry", "outside skill://pdf-processing/"],
      [noSkillMd, "entry", "does not list the SKILL.md"],
    ] as const) {
      const p = peer({ [URI]: SKILL_MD });
      const e = await refusal(loadSkill(p, entry as Skill, {}));
      expect([e.refusal, e.message]).toEqual([refusal_, expect.stringContaining(text)]);
      expect(p.reads).toEqual([]);
    }
  });

  it("refuses an entry whose frontmatter nests deeper than the runtime's bound, before reading", async () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 300; i++) deep = { deep };
    const entry = entryOf({ [URI]: SKILL_MD }, { name: "pdf-processing", description: "d", deep });
    const p = peer({ [URI]: SKILL_MD });
    const e = await refusal(loadSkill(p, entry, {}));
    expect([e.refusal, e.message]).toEqual(["entry", expect.stringContaining("nested more than 256 levels")]);
    expect(p.reads).toEqual([]);
  });

  it('refuses a "dynamic" skill unless asked, then bounds what it reads in all', async () => {
    const dynamic: Skill = { ...entryOf({}), resources: "dynamic" };
    const p = peer({ [URI]: SKILL_MD, [FORMS_URI]: FORMS });
    expect((await refusal(loadSkill(p, dynamic, {}))).refusal).toBe("dynamic");
    expect(p.reads).toEqual([]);
    const held = await loadSkill(p, dynamic, { allowDynamic: true });
    expect((await held.readFile("references/FORMS.md")).text).toBe(FORMS);
    p.served["skill://pdf-processing/big"] = "x".repeat(
      MAX_SKILL_BYTES - Buffer.byteLength(SKILL_MD) - FORMS.length + 1,
    );
    expect((await refusal(held.readFile("big"))).refusal).toBe("limit");
  });

  it("lets a held skill read only the files its entry lists, each verified again", async () => {
    const p = peer({ [URI]: SKILL_MD, [FORMS_URI]: FORMS, "skill://other/SKILL.md": "x" });
    const held = await loadSkill(p, entryOf({ [URI]: SKILL_MD, [FORMS_URI]: FORMS }), {});
    for (const path of [
      "../other/SKILL.md",
      "skill://other/SKILL.md",
      "references/OTHER.md",
      "/etc/passwd",
      "%2e%2e/other/SKILL.md",
      "references\\FORMS.md",
      ".",
    ]) {
      const e = await refusal(held.readFile(path));
      expect(e.refusal).toBe("path");
    }
    expect(p.reads).toEqual([URI]);
    p.served[FORMS_URI] = "Forms!\n";
    const e = await refusal(held.readFile("references/FORMS.md"));
    expect([e.refusal, e.uri]).toEqual(["digest", FORMS_URI]);
    p.served[FORMS_URI] = "";
    expect((await refusal(held.readFile("references/FORMS.md"))).refusal).toBe("size");
    delete p.served[FORMS_URI];
    expect((await refusal(held.readFile("references/FORMS.md"))).refusal).toBe("read");
  });
});

/**
 * The everything-client's scenario logic over stdio, against a generated-handler server serving what the
 * suite's client scenarios serve (fixtures/client-scenarios-server.ts); the HTTP side is the suite's own
 * (test/conformance/run.ts).
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { applySchemaDefaults, handlers } from "../../examples/everything-client/handlers.js";
import { ElicitResultSchema } from "../../generated/2025-11-25/schemas.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const TSX = `${REPO}node_modules/.bin/tsx`;
const SERVER = [
  TSX,
  "--conditions=mcp-codegen-source",
  `${REPO}test/conformance/fixtures/client-scenarios-server.ts`,
];

async function runClient(scenario: string | undefined, target: string[] = SERVER) {
  const env: NodeJS.ProcessEnv = { ...process.env, MCP_CONFORMANCE_PROTOCOL_VERSION: "2025-11-25" };
  if (scenario === undefined) delete env.MCP_CONFORMANCE_SCENARIO;
  else env.MCP_CONFORMANCE_SCENARIO = scenario;
  try {
    const { stderr } = await promisify(execFile)(
      TSX,
      ["--conditions=mcp-codegen-source", `${REPO}examples/everything-client/main.ts`, ...target],
      { env, timeout: 30_000 },
    );
    return { code: 0, stderr };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    return { code: e.code ?? -1, stderr: e.stderr ?? String(error) };
  }
}

/** The form the suite's elicitation-sep1034-client-defaults scenario sends. */
const SUITE_FORM = {
  type: "object" as const,
  properties: {
    name: { type: "string" as const, description: "User name", default: "John Doe" },
    age: { type: "integer" as const, description: "User age", default: 30 },
    score: { type: "number" as const, description: "User score", default: 95.5 },
    status: {
      type: "string" as const,
      description: "User status",
      enum: ["active", "inactive", "pending"],
      default: "active",
    },
    verified: { type: "boolean" as const, description: "Verification status", default: true },
  },
  required: [],
};

describe("everything-client", () => {
  it("elicit: accepts a form with every schema default filled in (SEP-1034)", async () => {
    expect(applySchemaDefaults(SUITE_FORM)).toEqual({
      name: "John Doe",
      age: 30,
      score: 95.5,
      status: "active",
      verified: true,
    });
    expect(applySchemaDefaults(SUITE_FORM, { name: "Ada" })).toMatchObject({ name: "Ada", age: 30 });
    const answer = await handlers.elicit!(
      { message: "m", requestedSchema: { type: "object", properties: { plain: { type: "string" } } } },
      {} as never,
    );
    expect(answer).toEqual({ action: "accept", content: {} });
    expect(
      await handlers.elicit!(
        { mode: "url", message: "m", url: "https://x", elicitationId: "1" },
        {} as never,
      ),
    ).toEqual({ action: "decline" });
  });

  it("the generated ElicitResult validator accepts the suite's fractional default (tables.SCHEMA_FIXES)", () => {
    // schema.json types these values as integer where the spec's schema.ts says number; the generator
    // corrects it, so the client can send the suite's 95.5.
    const checked = ElicitResultSchema.safeParse({
      action: "accept",
      content: applySchemaDefaults(SUITE_FORM),
    });
    expect(checked.success).toBe(true);
  });

  it.each([
    ["initialize", /tools: add_numbers, test_client_elicitation_defaults, test_reconnection/],
    ["tools_call", /add_numbers → The sum of 2 and 3 is 5/],
    [
      "elicitation-sep1034-client-defaults",
      /test_client_elicitation_defaults → Elicitation completed: \{"name":"John Doe"/,
    ],
    ["sse-retry", /test_reconnection → Reconnection test completed successfully/],
  ])("scenario %s over stdio", async (scenario, expected) => {
    const { code, stderr } = await runClient(scenario);
    expect(stderr).toMatch(expected);
    expect(stderr).toContain(`scenario ${scenario} done`);
    expect(code).toBe(0);
  });

  // The suite names no version for an [extension] scenario and passes 2025-11-25: the skills scenarios
  // still run on the 2026-07-28 client. Against SDK v2's skills server (test/fixtures/skills), one SKILL.md
  // tampered: that skill is refused and none of its files read; the other is loaded and verified.
  it("skills scenarios over stdio: list only, or load and verify, refusing a tampered skill", async () => {
    const server = (...extra: string[]) => [
      TSX,
      `${REPO}test/fixtures/skills/sdk-skills-server.ts`,
      `${REPO}test/fixtures/skills/folder`,
      ...extra,
    ];
    const listed = await runClient("sep-2640-client-no-prefetch", server());
    expect(listed.stderr).toContain(
      "listed 2 skills: skill://git-basics/SKILL.md, skill://pdf-processing/SKILL.md",
    );
    expect(listed.code).toBe(0);
    const verified = await runClient(
      "sep-2640-client-verify-digest",
      server("--tamper", "pdf-processing/SKILL.md"),
    );
    expect(verified.stderr).toContain("skill skill://git-basics/SKILL.md: loaded, 1 files verified");
    expect(verified.stderr).toMatch(/refused skill skill:\/\/pdf-processing\/SKILL.md: the content's digest/);
    expect(verified.stderr).not.toContain("skill skill://pdf-processing/SKILL.md: loaded");
    expect(verified.code).toBe(0);
  }, 60_000);

  it("exits 1 when a scenario's tool call fails, 2 on an unknown scenario or no target", async () => {
    const failing = await runClient("elicitation-sep1034-client-defaults", [
      TSX,
      "--conditions=mcp-codegen-source",
      `${REPO}examples/everything-server/main.ts`,
      "--stdio",
    ]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toContain("Unknown tool: test_client_elicitation_defaults");
    const unknown = await runClient("no-such-scenario");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown scenario "no-such-scenario"');
    const noTarget = await runClient("initialize", []);
    expect(noTarget.code).toBe(2);
  });
});

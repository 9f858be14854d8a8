/**
 * The official conformance suite's 2026-07-28 client scenarios, run by its own CLI (real mock servers on
 * localhost) against examples/everything-client at `--spec-version 2026-07-28`: every check passes (or is
 * skipped as not applicable), none warns, and the client exits 0. test/conformance/run.ts runs the same
 * scenarios as part of the whole suite.
 */
import { describe, expect, it } from "vitest";
import { conformanceClient } from "../support/conformance-client.js";

// Relative to the repository: the suite splits the command on spaces.
const CLIENT = "node_modules/.bin/tsx --conditions=mcp-codegen-source examples/everything-client/main.ts";
const scenario = (name: string) => conformanceClient(CLIENT, name, "2026-07-28");

/** Scenario → how many checks succeed (the rest are skipped as not applicable, or INFO). */
const SCENARIOS: ReadonlyArray<readonly [string, number]> = [
  ["tools_call", 2],
  // Roots and elicitation declared; sampling not (this client cannot sample), so its check is skipped.
  ["request-metadata", 7],
  ["sep-2322-client-request-state", 5],
  ["http-standard-headers", 9],
  ["http-custom-headers", 18],
  ["http-invalid-tool-headers", 12],
  ["json-schema-ref-no-deref", 1],
  ["json-schema-2020-12-preservation", 9],
];

describe("conformance client scenarios at 2026-07-28", () => {
  it.each(SCENARIOS)("%s: %i checks pass, none fails or warns", async (name, successes) => {
    const { checks, output } = await scenario(name);
    const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
    expect(bad.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`)).toEqual([]);
    expect(checks.filter((c) => c.status === "SUCCESS")).toHaveLength(successes);
    expect(output).toContain("OVERALL: PASSED");
  });
});

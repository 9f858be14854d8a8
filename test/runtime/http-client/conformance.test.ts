/**
 * The official conformance suite's client scenarios over Streamable HTTP, run by its own CLI against
 * test/fixtures/http-client/conformance-client.ts (the generated client on connectHttp). sse-retry checks
 * that a closed response stream is resumed with GET + Last-Event-ID no sooner than the server's `retry:`.
 */
import { describe, expect, it } from "vitest";
import { type Check, conformanceClient, REPO } from "../../support/conformance-client.js";

const CLIENT = `${REPO}node_modules/.bin/tsx --conditions=mcp-codegen-source ${REPO}test/fixtures/http-client/conformance-client.ts`;
const scenario = async (name: string): Promise<Check[]> => (await conformanceClient(CLIENT, name)).checks;

const verdicts = (checks: Check[]) =>
  checks
    .filter((c) => c.status !== "INFO")
    .map((c) => `${c.id}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);

describe("conformance client scenarios over HTTP", () => {
  it("sse-retry: reconnects after the retry delay, with Last-Event-ID", async () => {
    const checks = await scenario("sse-retry");
    expect(verdicts(checks)).toEqual([
      "client-sse-graceful-reconnect: SUCCESS",
      "client-sse-retry-timing: SUCCESS",
      "client-sse-last-event-id: SUCCESS",
    ]);
  });

  it.each(["initialize", "tools_call"])("%s passes", async (name) => {
    const checks = await scenario(name);
    expect(checks.some((c) => c.status === "SUCCESS")).toBe(true);
    expect(verdicts(checks).filter((v) => !v.includes(": SUCCESS"))).toEqual([]);
  });
});

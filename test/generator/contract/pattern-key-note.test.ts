/**
 * A `patternProperties` key reaches no emitted source: json-schema-to-typescript names it in a doc note
 * whose `*\/` it escapes only once, so a key with two of them closed the comment and the rest of the key
 * was code in `types.ts`. The key goes to the library as a stand-in and the note is dropped.
 */
import { describe, expect, it } from "vitest";
import { emitContract } from "../../../generator/contract/emit.js";
import { loadContractText } from "../../../generator/contract/load.js";

const KEY = "a*/b*/;globalThis.PWNED_pattern=1;/*";

describe("patternProperties keys in types.ts", () => {
  it("never reach the emitted types, not even in a comment", async () => {
    const contract = await loadContractText(
      JSON.stringify({
        tools: {
          tags: {
            inputSchema: {
              type: "object",
              properties: { labels: { type: "object", patternProperties: { [KEY]: { type: "string" } } } },
            },
          },
        },
      }),
      "contract.json",
    );
    const files = await emitContract(contract, { protocolVersion: "2025-11-25" });
    const types = files["types.ts"]!;
    expect(types).toContain("export type TagsInput = {");
    expect(types).not.toContain("PWNED_pattern");
    expect(types).not.toContain("patternProperty");
    // The validators still check the pattern, its source written as a string literal.
    expect(files["validators.js"]).toContain(JSON.stringify(KEY));
  });
});

/**
 * What `mcp-codegen test` sends to prompts and resource templates: URIs expanded from sampled variables
 * that read back as those values (and those that cannot, left unsent), URIs a server must refuse (a
 * variable's type or enum broken, where the template can carry it), and prompt arguments a server must
 * refuse (a required one missing, an enum one outside its enum), each proven by the contract's check.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileChecks } from "../../../generator/contract/checks.js";
import { loadContractText } from "../../../generator/contract/load.js";
import type { ContractModel } from "../../../generator/contract/model.js";
import type { Json, SchemaNode } from "../../../generator/protocol/load.js";
import { arbitraryOf } from "../../../generator/sampling/arbitrary.js";
import { readsBack, uriTemplateOf } from "../../../generator/sampling/template-uris.js";
import { wrongPromptArguments } from "../../../generator/sampling/wrong-prompt-arguments.js";
import { wrongUris } from "../../../generator/sampling/wrong-uris.js";

const YAML = `
prompts:
  review:
    arguments:
      - { name: code, required: true }
      - { name: focus }
      - { name: tone, enum: [gentle, strict] }
  odd:
    arguments:
      - { name: mood, enum: [not-a-valid-value, calm] }
resourceTemplates:
  item: { uriTemplate: "items://{id}{?format,draft}", variables: { id: { type: integer }, format: { enum: [text, json] }, draft: { type: boolean } } }
  file: { uriTemplate: "files://{+path}{?tags*}", variables: { tags: { type: array, items: { type: string } } } }
  split: { uriTemplate: "split://{+path}{/segs*}", variables: { segs: { type: array, items: { type: string } } } }
  short: { uriTemplate: "codes://{code:2}/{n:1}", variables: { n: { type: integer } } }
  pair: { uriTemplate: "pairs://{a}{b}" }
  text: { uriTemplate: "notes://{title}" }
`;

async function contract(): Promise<{
  model: ContractModel;
  checks: ReturnType<typeof compileChecks>;
  defs: Record<string, SchemaNode>;
}> {
  const model = await loadContractText(YAML, "contract.yaml");
  const defs = Object.fromEntries(model.definitions.map((d) => [d.name, d.schema]));
  return { model, checks: compileChecks(model.definitions), defs };
}
const template = (model: ContractModel, name: string) =>
  model.resourceTemplates.find((t) => t.name === name)!;

describe("readsBack", () => {
  it("holds for every sampled value a template can carry (each variable read back as its text)", async () => {
    const { model, defs, checks } = await contract();
    for (const name of ["item", "file", "text"]) {
      const t = template(model, name);
      const uriTemplate = uriTemplateOf(t);
      for (const values of fc.sample(arbitraryOf(defs[t.vars]!, defs), { numRuns: 300, seed: 7 })) {
        const variables = values as Record<string, Json>;
        expect(checks.get(t.vars)!(variables)).toBeUndefined();
        const uri = uriTemplate.expand(variables);
        // `{+path}` keeps reserved characters, so a path holding `?` or `#` ends the expression early.
        if (name === "file" && /[?#]|%[0-9A-F]{2}/i.test(String(variables.path))) continue;
        expect(
          readsBack(uriTemplate, t, variables, uri),
          `${name}: ${JSON.stringify(variables)} → ${uri}`,
        ).toBe(true);
      }
    }
  });

  it("fails where the URI cannot carry the value: a prefix cuts it, adjacent variables merge, reserved text ends it", async () => {
    const { model } = await contract();
    const short = template(model, "short");
    const shortUri = uriTemplateOf(short);
    expect(readsBack(shortUri, short, { code: "ab", n: 5 }, shortUri.expand({ code: "ab", n: 5 }))).toBe(
      true,
    );
    expect(readsBack(shortUri, short, { code: "abcd", n: 5 }, shortUri.expand({ code: "abcd", n: 5 }))).toBe(
      false,
    );
    expect(readsBack(shortUri, short, { code: "ab", n: 42 }, shortUri.expand({ code: "ab", n: 42 }))).toBe(
      false,
    );
    const pair = template(model, "pair");
    const pairUri = uriTemplateOf(pair);
    expect(readsBack(pairUri, pair, { a: "x", b: "y" }, pairUri.expand({ a: "x", b: "y" }))).toBe(false);
    const file = template(model, "file");
    const fileUri = uriTemplateOf(file);
    expect(
      readsBack(fileUri, file, { path: "a/b", tags: ["c", "d e"] }, "files://a/b?tags=c&tags=d%20e"),
    ).toBe(true);
    expect(
      readsBack(fileUri, file, { path: "a?b", tags: [] }, fileUri.expand({ path: "a?b", tags: [] })),
    ).toBe(false);
    // A reserved expansion before a segment list: the server reads path "a" and segments b, c.
    const split = template(model, "split");
    const splitUri = uriTemplateOf(split);
    const values = { path: "a/b", segs: ["c"] };
    expect(splitUri.expand(values)).toBe("split://a/b/c");
    expect(readsBack(splitUri, split, values, "split://a/b/c")).toBe(false);
  });
});

describe("wrongUris", () => {
  it("breaks each typed or enum variable with a text the contract's check refuses there", async () => {
    const { model, checks } = await contract();
    const item = template(model, "item");
    const valid = { id: 4, format: "json" };
    expect(wrongUris(uriTemplateOf(item), item, valid, checks.get(item.vars)!)).toEqual([
      { field: "id", mistake: 'wrong type ("abc")', uri: "items://abc?format=json" },
      { field: "format", mistake: 'outside its enum ("abc")', uri: "items://4?format=abc" },
      { field: "draft", mistake: 'wrong type ("abc")', uri: "items://4?format=json&draft=abc" },
    ]);
  });

  it("has none for free text, arrays, or a variable whose prefix cannot carry the text", async () => {
    const { model, checks } = await contract();
    const cases: [string, Record<string, Json>][] = [
      ["text", { title: "x" }],
      ["file", { path: "a", tags: ["b"] }],
      ["short", { code: "ab", n: 5 }],
    ];
    for (const [name, valid] of cases) {
      const t = template(model, name);
      expect(wrongUris(uriTemplateOf(t), t, valid, checks.get(t.vars)!), name).toEqual([]);
    }
  });
});

describe("wrongPromptArguments", () => {
  it("sends each required argument missing and each enum argument outside its enum", async () => {
    const { model, checks } = await contract();
    const review = model.prompts.find((p) => p.name === "review")!;
    expect(wrongPromptArguments({ code: "x" }, review.arguments, checks.get(review.args)!)).toEqual([
      { field: "code", mistake: "missing", args: {} },
      {
        field: "tone",
        mistake: 'outside its enum ("not-a-valid-value")',
        args: { code: "x", tone: "not-a-valid-value" },
      },
    ]);
  });

  it("takes a text the enum lacks", async () => {
    const { model, checks } = await contract();
    const odd = model.prompts.find((p) => p.name === "odd")!;
    expect(wrongPromptArguments({}, odd.arguments, checks.get(odd.args)!)).toEqual([
      {
        field: "mood",
        mistake: 'outside its enum ("not-a-valid-value-either")',
        args: { mood: "not-a-valid-value-either" },
      },
    ]);
  });
});

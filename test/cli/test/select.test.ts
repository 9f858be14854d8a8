/** `--only`/`--skip` of `mcp-codegen test`: names, kind:name, kind:*, and a name the contract lacks refused. */
import { describe, expect, it } from "vitest";
import { CliError } from "../../../generator/cli/errors.js";
import { collect, type Named, selection } from "../../../generator/cli/test/select.js";

const items: Named[] = [
  { kind: "tool", name: "add" },
  { kind: "tool", name: "slow" },
  { kind: "prompt", name: "add" },
  { kind: "template", name: "task" },
  { kind: "resource", name: "readme" },
];
const chosen = (only: string[], skip: string[] = []) => items.filter(selection(items, only, skip));

describe("selection", () => {
  it("takes every item by default, and a bare name of any kind", () => {
    expect(chosen([])).toEqual(items);
    expect(chosen(["add"])).toEqual([items[0], items[2]]);
  });

  it("takes kind:name and kind:*, and leaves out what --skip names", () => {
    expect(chosen(["tool:add", "template:task"])).toEqual([items[0], items[3]]);
    expect(chosen(["tool:*"], ["slow"])).toEqual([items[0]]);
    expect(chosen([], ["tool:slow", "resource:*"])).toEqual([items[0], items[2], items[3]]);
  });

  it("refuses a name the contract does not declare, naming the flag", () => {
    expect(() => chosen(["ad"])).toThrow(CliError);
    expect(() => chosen(["ad"])).toThrow(
      /--only ad: the contract declares no tool, prompt, template, resource, skill or view named ad/,
    );
    expect(() => chosen([], ["prompt:slow"])).toThrow(
      /--skip prompt:slow: the contract declares no prompt named slow/,
    );
  });

  it("collects repeated and comma-separated values", () => {
    expect(collect("b, c", collect("a"))).toEqual(["a", "b", "c"]);
  });
});

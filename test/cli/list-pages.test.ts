/** allPages: every page in order, and an error (never an endless loop) for cursors that repeat or never end. */
import { describe, expect, it } from "vitest";
import { allPages, MAX_PAGES } from "../../generator/cli/list-pages.js";

describe("allPages", () => {
  it("follows nextCursor to the last page, items in order, reporting each page", async () => {
    const pages: Record<string, { tools: string[]; nextCursor?: string }> = {
      "": { tools: ["a", "b"], nextCursor: "2" },
      "2": { tools: ["c"], nextCursor: "3" },
      "3": { tools: [] },
    };
    const seen: number[] = [];
    const items = await allPages(
      "tools/list",
      "tools",
      async ({ cursor }) => pages[cursor ?? ""]!,
      (p) => {
        seen.push(p);
      },
    );
    expect(items).toEqual(["a", "b", "c"]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it("refuses a repeated cursor, endless cursors and a page without its array", async () => {
    await expect(
      allPages("tools/list", "tools", async () => ({ tools: [], nextCursor: "x" })),
    ).rejects.toThrow('tools/list repeats the cursor "x"');
    let n = 0;
    await expect(
      allPages("prompts/list", "prompts", async () => ({ prompts: [1], nextCursor: String(n++) })),
    ).rejects.toThrow(`prompts/list has more than ${MAX_PAGES} pages`);
    expect(n).toBe(MAX_PAGES);
    await expect(allPages("resources/list", "resources", async () => ({}))).rejects.toThrow(
      "the resources/list result has no resources array",
    );
  });
});

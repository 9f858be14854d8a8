/**
 * The runtime's URI-template matcher and expander against the uri-template library (the generator's
 * parser): whatever the library expands, ours matches back to the same values, and ours expands alike.
 */
import fc from "fast-check";
import { parse } from "uri-template";
import { describe, expect, it } from "vitest";
import { templateParts } from "../../../generator/contract/load.js";
import { UriTemplate } from "../../../runtime/mcp/uri-template.js";

const compile = (template: string) => new UriTemplate(template, templateParts(template, "test", "template"));

/** Values as users name things: letters, digits, spaces, reserved and non-ASCII characters. */
const text = fc.string({
  unit: fc.constantFrom(..."abcXYZ019 -._~/?#[]@!$&'()*+,;=%é€".split(/(?:)/u)),
  minLength: 1,
  maxLength: 12,
});

const CASES: { template: string; vars: string[]; restrict?: (name: string) => fc.Arbitrary<string> }[] = [
  { template: "greeting://{name}", vars: ["name"] },
  { template: "file:///{+path}", vars: ["path"] },
  { template: "users://{id}/posts/{post}", vars: ["id", "post"] },
  { template: "search://all{?q,lang}", vars: ["q", "lang"] },
  { template: "repo://{owner}/{repo}{?ref}", vars: ["owner", "repo", "ref"] },
  { template: "docs://x{/section,page}", vars: ["section", "page"] },
  { template: "files://{+dir}/{name}.txt", vars: ["dir", "name"] },
  { template: "map://{;lat,lng}", vars: ["lat", "lng"] },
  { template: "frag://doc{#part}", vars: ["part"] },
  { template: "dot://host{.ext}", vars: ["ext"] },
];

describe("UriTemplate", () => {
  for (const c of CASES) {
    it(`matches what the library expands: ${c.template}`, () => {
      const ours = compile(c.template);
      const theirs = parse(c.template);
      // Reserved expansion ({+x}) keeps "/" and "?"; values that would make the URI ambiguous for any
      // reader (a "/" inside a simple {name} followed by "/…", a "?" before the query) are the template
      // author's concern, so each variable gets values its operator can carry unambiguously.
      // (A value holding a percent-encoded triplet passes through reserved expansion as it is, so it reads
      // back decoded: RFC 6570 makes that lossy, and such values are left out.)
      const triplet = /%[0-9a-f]{2}/i;
      const safe = (op: string) =>
        op === "+"
          ? text.filter((s) => !/[?#,]/.test(s) && !triplet.test(s))
          : op === "#"
            ? text.filter((s) => !s.includes(",") && !triplet.test(s))
            : op === "."
              ? text.filter((s) => !s.includes("."))
              : text;
      const opOf = (name: string) =>
        ours.parts.find((p) => typeof p !== "string" && p.vars.some((v) => v.name === name)) as {
          op: string;
        };
      const values = fc.record(Object.fromEntries(c.vars.map((v) => [v, safe(opOf(v).op)])));
      fc.assert(
        fc.property(values, (vals) => {
          const uri = theirs.expand(vals);
          expect(ours.expand(vals)).toBe(uri);
          expect(ours.match(uri)).toEqual(vals);
        }),
        { numRuns: 300 },
      );
    });
  }

  it("leaves out undefined query variables and reads the query in any order", () => {
    const t = compile("search://all{?q,lang}");
    expect(t.match("search://all")).toEqual({});
    expect(t.match("search://all?lang=fr&q=caf%C3%A9")).toEqual({ q: "café", lang: "fr" });
    expect(t.match("search://all?other=1&q=x")).toEqual({ q: "x" });
    expect(t.expand({ q: "a b" })).toBe("search://all?q=a%20b");
  });

  it("refuses URIs of another shape and bad percent-encoding", () => {
    const t = compile("users://{id}/posts/{post}");
    expect(t.match("users://1/comments/2")).toBeUndefined();
    expect(t.match("users://1/posts/2/extra")).toBeUndefined();
    expect(t.match("users://%E0%A4%A/posts/1")).toBeUndefined();
    expect(t.match("other://1/posts/2")).toBeUndefined();
  });

  it("explodes lists and truncates prefixes as RFC 6570 says", () => {
    const t = compile("docs://x{/path*}{?tag*}");
    expect(t.expand({ path: ["a", "b c"], tag: ["x", "y"] })).toBe(
      parse("docs://x{/path*}{?tag*}").expand({ path: ["a", "b c"], tag: ["x", "y"] }),
    );
    expect(t.match("docs://x/a/b%20c?tag=x&tag=y")).toEqual({ path: ["a", "b c"], tag: ["x", "y"] });
    expect(compile("short://{name:3}").expand({ name: "abcdef" })).toBe("short://abc");
  });

  it("is refused at generate time when the template is not RFC 6570", () => {
    expect(() => templateParts("bad://{na me}", "contract.yaml", "resourceTemplates.x.uriTemplate")).toThrow(
      /contract\.yaml: resourceTemplates\.x\.uriTemplate: not an RFC 6570 URI template/,
    );
  });
});

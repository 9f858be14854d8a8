/** WWW-Authenticate: what the resource server writes, what a client reads back, and malformed input refused. */
import { describe, expect, it } from "vitest";
import {
  bearerChallenge,
  challengeFor,
  challengeScopes,
  formatChallenge,
  formatChallenges,
  parseChallenges,
} from "../../../runtime/auth/challenge.js";

describe("formatChallenge / parseChallenges", () => {
  it("round-trips the parameters MCP uses, quoting and escaping values", () => {
    const written = formatChallenges([
      bearerChallenge({
        error: "insufficient_scope",
        errorDescription: 'needs "admin" \\ more',
        scope: ["mcp:read", "mcp:admin"],
        resourceMetadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
      }),
      bearerChallenge({ scheme: "DPoP", algs: ["ES256", "RS256"] }),
    ]);
    expect(written).toBe(
      'Bearer error="insufficient_scope", error_description="needs \\"admin\\" \\\\ more", scope="mcp:read mcp:admin", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", DPoP algs="ES256 RS256"',
    );
    const parsed = parseChallenges(written)!;
    expect(parsed).toHaveLength(2);
    expect(parsed[0]!.params).toEqual({
      error: "insufficient_scope",
      error_description: 'needs "admin" \\ more',
      scope: "mcp:read mcp:admin",
      resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
    });
    expect(challengeScopes(parsed[0]!)).toEqual(["mcp:read", "mcp:admin"]);
    expect(challengeFor(parsed, "dpop")!.params.algs).toBe("ES256 RS256");
  });

  it("reads token values, any case of names, bare schemes, token68 and several headers joined", () => {
    expect(parseChallenges('Bearer Realm=example, Error=invalid_token, Basic realm="x"')).toEqual([
      { scheme: "Bearer", params: { realm: "example", error: "invalid_token" } },
      { scheme: "Basic", params: { realm: "x" } },
    ]);
    expect(parseChallenges("Negotiate abc+/def==, Bearer")).toEqual([
      { scheme: "Negotiate", params: {}, token68: "abc+/def==" },
      { scheme: "Bearer", params: {} },
    ]);
    expect(parseChallenges("")).toEqual([]);
    expect(challengeScopes(parseChallenges('Bearer scope=" "')![0]!)).toBeUndefined();
  });

  it.each([
    ['Bearer realm="unterminated'],
    ['realm="no scheme"'],
    ['Bearer a="1" b="2"'],
    ['Bearer a="1", a="2"'],
    ['Bearer a="\x01"'],
    ["Bearer a=, b=1"],
    ['Bearer"x"'],
    ['Basic abc==, x="1"'],
  ])("refuses %j (undefined, never a throw)", (header) => {
    expect(parseChallenges(header)).toBeUndefined();
  });

  it("will not write a value a header cannot carry", () => {
    expect(() => formatChallenge({ scheme: "Bearer", params: { error_description: "line\nbreak" } })).toThrow(
      TypeError,
    );
    expect(() => formatChallenge({ scheme: "Bad Scheme", params: {} })).toThrow(TypeError);
  });
});

/** Protected Resource Metadata (RFC 9728) and canonical resource URIs (RFC 8707). */
import { describe, expect, it } from "vitest";
import {
  canonicalResource,
  protectedResourceMetadata,
  protectedResourceMetadataUrls,
} from "../../../runtime/auth/protected-resource.js";

describe("canonicalResource", () => {
  it.each([
    ["HTTPS://MCP.Example.COM/mcp", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com/mcp/", "https://mcp.example.com/mcp"],
    ["https://mcp.example.com/", "https://mcp.example.com"],
    ["https://mcp.example.com:443/server/mcp#frag", "https://mcp.example.com/server/mcp"],
    ["https://mcp.example.com:8443", "https://mcp.example.com:8443"],
    ["http://127.0.0.1:3000/mcp?tenant=a", "http://127.0.0.1:3000/mcp?tenant=a"],
  ])("%s → %s", (given, canonical) => {
    expect(canonicalResource(given)).toBe(canonical);
  });

  it.each(["ftp://x.example/mcp", "https://user:pw@x.example/mcp", "not a url"])("refuses %s", (given) => {
    expect(() => canonicalResource(given)).toThrow(TypeError);
  });
});

describe("metadata", () => {
  it("is addressed path-aware first, then at the root", () => {
    expect(protectedResourceMetadataUrls("https://mcp.example.com/server/mcp/")).toEqual({
      pathAware: "https://mcp.example.com/.well-known/oauth-protected-resource/server/mcp",
      root: "https://mcp.example.com/.well-known/oauth-protected-resource",
    });
    const bare = protectedResourceMetadataUrls("https://mcp.example.com");
    expect(bare.pathAware).toBe(bare.root);
  });

  it("lists what MCP clients read, never offline_access", () => {
    expect(
      protectedResourceMetadata({
        resource: "https://MCP.example.com/mcp/",
        authorizationServers: ["https://auth.example.com"],
        scopesSupported: ["mcp:read", "offline_access", "mcp:read"],
      }),
    ).toEqual({
      resource: "https://mcp.example.com/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["mcp:read"],
    });
  });
});

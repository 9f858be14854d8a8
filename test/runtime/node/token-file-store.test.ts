/**
 * FileTokenStore on real files: modes (0600 file, 0700 directory, whatever the umask), refusal of a file
 * others can read, atomic replacement (no temporary file left), operations of one store serialized,
 * contents never in an error, and the default path.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  defaultTokenFilePath,
  FileTokenStore,
  TokenFileError,
} from "../../../runtime/node/token-file-store.js";

const work = mkdtempSync(join(tmpdir(), "mcp-codegen-token-store-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(work, `case-${++n}`, "nested", "tokens.json");

const ISSUER = "https://as.example.com";
const RESOURCE = "https://mcp.example.com/mcp";
const TOKENS = {
  access_token: "at-secret-1",
  token_type: "Bearer",
  refresh_token: "rt-secret-1",
  expires_at: 2e9,
};
const mode = (path: string) => statSync(path).mode & 0o777;
const posix = process.platform !== "win32";

describe("FileTokenStore", () => {
  it("keeps tokens per issuer and resource and clients per issuer, across store instances", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    expect(await store.getTokens({ issuer: ISSUER, resource: RESOURCE })).toBeUndefined();
    await store.setTokens({ issuer: ISSUER, resource: RESOURCE }, TOKENS);
    await store.setTokens(
      { issuer: ISSUER, resource: `${RESOURCE}/other` },
      { ...TOKENS, access_token: "at-2" },
    );
    await store.setClient(ISSUER, { client_id: "client-1", client_secret: "cs-secret" });

    const again = new FileTokenStore(path);
    expect(await again.getTokens({ issuer: ISSUER, resource: RESOURCE })).toEqual(TOKENS);
    expect((await again.getTokens({ issuer: ISSUER, resource: `${RESOURCE}/other` }))?.access_token).toBe(
      "at-2",
    );
    expect(
      await again.getTokens({ issuer: "https://other-as.example.com", resource: RESOURCE }),
    ).toBeUndefined();
    expect(await again.getClient(ISSUER)).toEqual({ client_id: "client-1", client_secret: "cs-secret" });
    expect(await again.getClient("https://other-as.example.com")).toBeUndefined();

    await again.setTokens({ issuer: ISSUER, resource: RESOURCE }, undefined);
    await again.setClient(ISSUER, undefined);
    expect(await store.getTokens({ issuer: ISSUER, resource: RESOURCE })).toBeUndefined();
    expect(await store.getClient(ISSUER)).toBeUndefined();
    expect((await store.getTokens({ issuer: ISSUER, resource: `${RESOURCE}/other` }))?.access_token).toBe(
      "at-2",
    );
  });

  it.runIf(posix)("creates the file 0600 and its missing directories 0700, even with umask 0", async () => {
    const path = freshPath();
    const previous = process.umask(0);
    try {
      await new FileTokenStore(path).setTokens({ issuer: ISSUER, resource: RESOURCE }, TOKENS);
    } finally {
      process.umask(previous);
    }
    expect(mode(path)).toBe(0o600);
    expect(mode(join(path, ".."))).toBe(0o700);
    expect(mode(join(path, "..", ".."))).toBe(0o700);
    // Replaced, not rewritten in place: still 0600, and no temporary file left beside it.
    await new FileTokenStore(path).setClient(ISSUER, { client_id: "c" });
    expect(mode(path)).toBe(0o600);
    expect(readdirSync(join(path, ".."))).toEqual(["tokens.json"]);
  });

  it.runIf(posix)("refuses a file others can read, naming the fix, and leaves it as it was", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    await store.setTokens({ issuer: ISSUER, resource: RESOURCE }, TOKENS);
    chmodSync(path, 0o644);
    const before = readFileSync(path, "utf8");
    const read = store.getTokens({ issuer: ISSUER, resource: RESOURCE });
    await expect(read).rejects.toBeInstanceOf(TokenFileError);
    await expect(read).rejects.toThrow(/readable or writable by others \(mode 644\).*chmod 600/);
    await expect(store.setClient(ISSUER, { client_id: "c" })).rejects.toBeInstanceOf(TokenFileError);
    expect(readFileSync(path, "utf8")).toBe(before);
    expect(mode(path)).toBe(0o644);
    chmodSync(path, 0o600);
    expect(await store.getTokens({ issuer: ISSUER, resource: RESOURCE })).toEqual(TOKENS);
  });

  it("refuses a file that is not JSON or not a token file without quoting it, and does not overwrite it", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    await store.setClient(ISSUER, { client_id: "c" });
    writeFileSync(path, '{"tokens": {"x": at-secret-in-broken-json', { mode: 0o600 });
    const broken = store.getTokens({ issuer: ISSUER, resource: RESOURCE });
    await expect(broken).rejects.toBeInstanceOf(TokenFileError);
    await expect(broken).rejects.toThrow(`${path}: is not valid JSON`);
    const error = await broken.catch((e: Error) => e);
    expect(String(error)).not.toContain("at-secret");
    expect(String((error as Error).stack)).not.toContain("at-secret");
    await expect(store.setTokens({ issuer: ISSUER, resource: RESOURCE }, TOKENS)).rejects.toBeInstanceOf(
      TokenFileError,
    );
    expect(readFileSync(path, "utf8")).toContain("at-secret-in-broken-json");

    writeFileSync(path, '["at-secret-array"]', { mode: 0o600 });
    await expect(store.getClient(ISSUER)).rejects.toThrow(/is not a token file/);
    writeFileSync(path, '{"tokens": "at-secret-string"}', { mode: 0o600 });
    await expect(store.getClient(ISSUER)).rejects.toThrow(/is not a token file/);
  });

  it("treats an entry of the wrong shape as absent, and rewrites it on the next login", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    await store.setClient(ISSUER, { client_id: "c" });
    writeFileSync(
      path,
      JSON.stringify({
        tokens: { [ISSUER]: { [RESOURCE]: { token_type: "Bearer" } } },
        clients: { [ISSUER]: 5 },
      }),
      { mode: 0o600 },
    );
    expect(await store.getTokens({ issuer: ISSUER, resource: RESOURCE })).toBeUndefined();
    expect(await store.getClient(ISSUER)).toBeUndefined();
    await store.setTokens({ issuer: ISSUER, resource: RESOURCE }, TOKENS);
    expect(await store.getTokens({ issuer: ISSUER, resource: RESOURCE })).toEqual(TOKENS);
  });

  it("serializes the operations of one store: 40 concurrent writes all land", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        store.setTokens(
          { issuer: ISSUER, resource: `${RESOURCE}/${i}` },
          { ...TOKENS, access_token: `at-${i}` },
        ),
      ),
    );
    const file = JSON.parse(readFileSync(path, "utf8")) as {
      tokens: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(file.tokens[ISSUER] ?? {})).toHaveLength(40);
    expect(readdirSync(join(path, ".."))).toEqual(["tokens.json"]);
  });

  it("keeps a key named __proto__ as a key", async () => {
    const path = freshPath();
    const store = new FileTokenStore(path);
    await store.setTokens({ issuer: "__proto__", resource: "__proto__" }, TOKENS);
    await store.setClient("__proto__", { client_id: "c" });
    const again = new FileTokenStore(path);
    expect(await again.getTokens({ issuer: "__proto__", resource: "__proto__" })).toEqual(TOKENS);
    expect(await again.getClient("__proto__")).toEqual({ client_id: "c" });
    expect(await again.getTokens({ issuer: ISSUER, resource: RESOURCE })).toBeUndefined();
    expect(({} as Record<string, unknown>).access_token).toBeUndefined();
  });
});

describe("defaultTokenFilePath", () => {
  it("is under $XDG_CONFIG_HOME when it is absolute, else under ~/.config", () => {
    expect(defaultTokenFilePath({ XDG_CONFIG_HOME: "/xdg" }, "/home/u")).toBe(
      join("/xdg", "mcp-codegen", "tokens.json"),
    );
    expect(defaultTokenFilePath({ XDG_CONFIG_HOME: "relative/dir" }, "/home/u")).toBe(
      join("/home/u", ".config", "mcp-codegen", "tokens.json"),
    );
    expect(defaultTokenFilePath({}, "/home/u")).toBe(
      join("/home/u", ".config", "mcp-codegen", "tokens.json"),
    );
  });
});

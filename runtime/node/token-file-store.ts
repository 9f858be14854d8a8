/**
 * A `TokenStore` in one JSON file, for CLIs and desktop apps that must keep a login between runs.
 *
 * - The file is created with mode 0600 and its directory, when missing, 0700. A file that exists with
 *   any group or other permission, or owned by another user, is refused (the error names the path and
 *   the fix, `chmod 600`), the way ssh refuses an unprotected key: its tokens may already have been
 *   read, so silently tightening it would hide that. (Windows has no such mode bits: not checked there.)
 * - Writes are atomic: a 0600 temporary file in the same directory, flushed, then renamed over the file,
 *   so a crash leaves the old file or the new one, never half of one.
 * - Operations of one store run one at a time, in call order; two stores on one path in one process, or
 *   two processes, do not coordinate (the last write wins).
 * - Contents are never logged and never put in an error message (not even JSON.parse's, which quotes
 *   the text it failed on).
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, rename, unlink } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import type { StoredClient, StoredTokens, TokenStore, TokenStoreKey } from "../auth/token-store.js";

interface FileShape {
  /** issuer → resource → tokens */
  tokens: Record<string, Record<string, StoredTokens>>;
  /** issuer → client registration */
  clients: Record<string, StoredClient>;
}

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

/** `$XDG_CONFIG_HOME/mcp-codegen/tokens.json`, else `~/.config/mcp-codegen/tokens.json`. */
export function defaultTokenFilePath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is invalid and to be ignored.
  const config = xdg && isAbsolute(xdg) ? xdg : join(home, ".config");
  return join(config, "mcp-codegen", "tokens.json");
}

/** The token file cannot be used as it is; the message says why and what to do, never what it holds. */
export class TokenFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = "TokenFileError";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A dictionary without a prototype, so no key (`__proto__` included) is anything but a key. */
const dictionary = <T>(entries: Iterable<[string, T]> = []): Record<string, T> =>
  Object.assign(Object.create(null) as Record<string, T>, Object.fromEntries(entries));

export class FileTokenStore implements TokenStore {
  readonly path: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(path: string = defaultTokenFilePath()) {
    this.path = path;
  }

  getTokens(key: TokenStoreKey): Promise<StoredTokens | undefined> {
    return this.#run(async () => {
      const entry = (await this.#read()).tokens[key.issuer]?.[key.resource];
      return isObject(entry) && typeof entry.access_token === "string" ? entry : undefined;
    });
  }

  setTokens(key: TokenStoreKey, tokens: StoredTokens | undefined): Promise<void> {
    return this.#update((file) => {
      const byResource = file.tokens[key.issuer] ?? dictionary<StoredTokens>();
      if (tokens === undefined) {
        if (!(key.resource in byResource)) return false;
        delete byResource[key.resource];
      } else {
        byResource[key.resource] = tokens;
      }
      if (Object.keys(byResource).length === 0) delete file.tokens[key.issuer];
      else file.tokens[key.issuer] = byResource;
      return true;
    });
  }

  getClient(issuer: string): Promise<StoredClient | undefined> {
    return this.#run(async () => {
      const entry = (await this.#read()).clients[issuer];
      return isObject(entry) && typeof entry.client_id === "string" ? entry : undefined;
    });
  }

  setClient(issuer: string, client: StoredClient | undefined): Promise<void> {
    return this.#update((file) => {
      if (client === undefined) {
        if (!(issuer in file.clients)) return false;
        delete file.clients[issuer];
      } else {
        file.clients[issuer] = client;
      }
      return true;
    });
  }

  /** Runs `task` after every operation called before it, whether they succeeded or not. */
  #run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(task, task);
    this.#queue = result.catch(() => {});
    return result;
  }

  /** Reads, lets `change` edit (it returns whether it changed anything), writes back if so. */
  #update(change: (file: FileShape) => boolean): Promise<void> {
    return this.#run(async () => {
      const file = await this.#read();
      if (change(file)) await this.#write(file);
    });
  }

  async #read(): Promise<FileShape> {
    let handle: Awaited<ReturnType<typeof open>>;
    try {
      handle = await open(this.path, "r");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return { tokens: dictionary(), clients: dictionary() };
      throw error;
    }
    try {
      // Checked on the open file, not the path, so a swap between check and read changes nothing.
      const stat = await handle.stat();
      if (process.platform !== "win32") {
        if ((stat.mode & 0o077) !== 0) {
          throw new TokenFileError(
            this.path,
            `is readable or writable by others (mode ${(stat.mode & 0o777).toString(8)}); its tokens may have been read. Check, then run: chmod 600 ${this.path}`,
          );
        }
        const uid = process.getuid?.();
        if (uid !== undefined && stat.uid !== uid) {
          throw new TokenFileError(
            this.path,
            `belongs to another user (uid ${stat.uid}); refusing to use it`,
          );
        }
      }
      return parse(this.path, await handle.readFile("utf8"));
    } finally {
      await handle.close();
    }
  }

  async #write(file: FileShape): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: DIR_MODE });
    const temp = join(dir, `.tokens-${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
    const handle = await open(temp, "wx", FILE_MODE);
    try {
      try {
        await handle.chmod(FILE_MODE); // exact, whatever the umask
        await handle.writeFile(`${JSON.stringify({ version: 1, ...file }, null, 2)}\n`, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error;
    }
  }
}

function parse(path: string, text: string): FileShape {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TokenFileError(path, "is not valid JSON; move it away to log in again");
  }
  const tokens = isObject(value) ? (value.tokens ?? {}) : undefined;
  const clients = isObject(value) ? (value.clients ?? {}) : undefined;
  if (!isObject(tokens) || !isObject(clients)) {
    throw new TokenFileError(path, "is not a token file; move it away to log in again");
  }
  // Entries of the wrong shape are skipped: that login is redone and its entry rewritten.
  return {
    tokens: dictionary(
      Object.entries(tokens)
        .filter((entry): entry is [string, Record<string, StoredTokens>] => isObject(entry[1]))
        .map(([issuer, byResource]) => [issuer, dictionary(Object.entries(byResource))]),
    ),
    clients: dictionary(Object.entries(clients) as [string, StoredClient][]),
  };
}

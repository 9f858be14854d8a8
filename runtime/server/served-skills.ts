/**
 * Serving a skills table (skills-table.ts): the Skills extension's methods in the stateless era
 * (`skills/list`, `skills/get`, and with `directoryRead` `resources/directory/read`), and in both eras
 * the skill files as resources: `resources/read` of each, `resources/list` listing each `SKILL.md` (with
 * the frontmatter's name and description) ahead of the server's own resources. A 2025-era session has
 * no `skills/*`: it reads skill files as ordinary resources.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import type { AnyHandler } from "../mcp/handler-context.js";
import { isStub } from "../mcp/not-implemented.js";
import { paginate } from "../mcp/pagination.js";
import {
  DIRECTORY_READ,
  SKILL_MD_MIME_TYPE,
  SKILLS_GET,
  SKILLS_LIST,
  type Skill,
  type SkillsCapability,
} from "../mcp/skills.js";
import type { SkillDirectoryChild, SkillFileContent, SkillsTable } from "./skills-table.js";

/** Entries per `skills/list` page: an entry is never split, so a page is whole entries. */
const SKILLS_PAGE = 50;
/** Children per `resources/directory/read` page. */
const DIRECTORY_PAGE = 100;

export class ServedSkills {
  readonly #skills: readonly Skill[];
  readonly #byUri: ReadonlyMap<string, Skill>;
  readonly #files: ReadonlyMap<string, SkillFileContent>;
  readonly #directories: ReadonlyMap<string, readonly SkillDirectoryChild[]>;
  /** The `resources/list` entries of the skills' `SKILL.md` files. */
  readonly #listed: readonly Record<string, unknown>[];
  /** What the server declares under `capabilities.extensions["io.modelcontextprotocol/skills"]`. */
  readonly capability: SkillsCapability;

  constructor(table: SkillsTable) {
    this.#skills = table.skills;
    this.#byUri = new Map(table.skills.map((s) => [s.uri, s]));
    this.#files = new Map(Object.entries(table.files));
    this.#directories = new Map(Object.entries(table.directories));
    this.capability = table.directoryRead ? { directoryRead: true } : {};
    this.#listed = table.skills.map((s) => {
      const size = Array.isArray(s.resources) ? s.resources.find((r) => r.uri === s.uri)?.size : undefined;
      return {
        uri: s.uri,
        name: s.frontmatter.name,
        description: s.frontmatter.description,
        mimeType: SKILL_MD_MIME_TYPE,
        ...(size === undefined ? {} : { size }),
      };
    });
  }

  /** Whether `method` is one of the extension's that this table serves. */
  serves(method: string): boolean {
    return (
      method === SKILLS_LIST ||
      method === SKILLS_GET ||
      (method === DIRECTORY_READ && this.capability.directoryRead === true)
    );
  }

  /** `skills/list`, `skills/get` or `resources/directory/read`, without the stateless era's decoration. */
  answer(method: string, params: unknown): Record<string, unknown> {
    const p = isObject(params) ? params : {};
    if (method === SKILLS_LIST) {
      const { page, nextCursor } = paginate(this.#skills, cursorOf(p), SKILLS_PAGE);
      return { skills: page, ...(nextCursor ? { nextCursor } : {}) };
    }
    const uri = p.uri;
    if (typeof uri !== "string")
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: uri must be a string");
    if (method === SKILLS_GET) {
      const skill = this.#byUri.get(uri);
      if (!skill) throw new McpError(ErrorCode.InvalidParams, `No skill is served at ${uri}`, { uri });
      return { skill };
    }
    const children = this.#directories.get(uri);
    if (!children)
      throw new McpError(
        ErrorCode.InvalidParams,
        this.#files.has(uri) ? `${uri} is not a directory resource` : `No directory is served at ${uri}`,
        { uri },
      );
    const { page, nextCursor } = paginate(children, cursorOf(p), DIRECTORY_PAGE);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  }

  /**
   * The server's handlers with the skill files as resources: `readResource` answers a skill file and
   * passes other URIs on (`notFound` when there is no handler to pass to); `listResources`' first page
   * lists every `SKILL.md` before the handler's own resources, whose cursors it passes on as they are.
   */
  withResources(
    handlers: Record<string, AnyHandler | undefined>,
    notFound: (uri: string, ctx: unknown) => Error,
  ): Record<string, AnyHandler | undefined> {
    const real = (h: AnyHandler | undefined) => (isStub(h) ? undefined : h);
    const list = real(handlers.listResources);
    const read = real(handlers.readResource);
    const listed = this.#listed;
    const files = this.#files;
    return {
      ...handlers,
      listResources: async (params: unknown, ctx: unknown) => {
        const cursor = isObject(params) ? params.cursor : undefined;
        if (!list) {
          if (cursor !== undefined) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
          return { resources: listed };
        }
        const own = (await list(params, ctx)) as Record<string, unknown>;
        if (cursor !== undefined) return own;
        return { ...own, resources: [...listed, ...((own.resources as unknown[] | undefined) ?? [])] };
      },
      readResource: (params: unknown, ctx: unknown) => {
        const uri = isObject(params) ? params.uri : undefined;
        const file = typeof uri === "string" ? files.get(uri) : undefined;
        if (file) return { contents: [{ uri, ...file }] };
        if (read) return read(params, ctx);
        throw notFound(String(uri), ctx);
      },
    };
  }
}

function cursorOf(params: Record<string, unknown>): string | undefined {
  const { cursor } = params;
  if (cursor === undefined) return undefined;
  if (typeof cursor !== "string")
    throw new McpError(ErrorCode.InvalidParams, "Invalid params: cursor must be a string");
  return cursor;
}

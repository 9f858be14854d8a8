/**
 * A project's `mcp-codegen.json`: its shape and how it is read. Kept apart from the scaffold (`project.ts`),
 * which loads templates, so that `generate` can read it without them.
 */

import { readFile } from "node:fs/promises";
import { join } from "node:path";

export const CONFIG_FILE = "mcp-codegen.json";

/** A project file the user can fix (config, handlers file): printed as one message, exit 2. */
export class ProjectError extends Error {
  override name = "ProjectError";
}

export interface ProjectConfig {
  kind: "server" | "client";
  protocol: string;
  output: string;
  handlers: string;
  schema: string | null;
  /**
   * The contract (tools, prompts, resources, resource templates in JSON Schema): a JSON/YAML file or a
   * folder of them; generated into `<output>/contract/`. Absent: none.
   */
  contract?: string;
  /**
   * The longest string (characters) the contract's validators run a `pattern` on when its schema sets no
   * `maxLength`; a longer one is refused naming the field (default `DEFAULT_PATTERN_MAX_LENGTH`, 4096).
   */
  patternMaxLength?: number;
}

export async function readConfig(dir: string): Promise<ProjectConfig | undefined> {
  const path = join(dir, CONFIG_FILE);
  const text = await readFile(path, "utf8").catch((e: NodeJS.ErrnoException) => {
    if (e.code === "ENOENT") return undefined;
    throw new ProjectError(`${path}: cannot read (${e.code ?? e.message})`);
  });
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ProjectError(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const c = raw as Partial<ProjectConfig>;
  const bad = (field: string, want: string) => new ProjectError(`${path}: "${field}" must be ${want}`);
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ProjectError(`${path}: must be a JSON object`);
  if (c.kind !== "server" && c.kind !== "client") throw bad("kind", '"server" or "client"');
  if (typeof c.protocol !== "string") throw bad("protocol", "a protocol version string");
  if (typeof c.output !== "string" || c.output === "") throw bad("output", "a folder name");
  if (typeof c.handlers !== "string" || c.handlers === "") throw bad("handlers", "a file path");
  if (c.schema !== undefined && c.schema !== null && typeof c.schema !== "string")
    throw bad("schema", "null or a file/URL");
  if (c.contract !== undefined && (typeof c.contract !== "string" || c.contract === ""))
    throw bad("contract", "the path of the contract file or folder");
  if (
    c.patternMaxLength !== undefined &&
    (!Number.isSafeInteger(c.patternMaxLength) || (c.patternMaxLength as number) < 1)
  )
    throw bad("patternMaxLength", "a positive integer (characters)");
  return {
    kind: c.kind,
    protocol: c.protocol,
    output: c.output,
    handlers: c.handlers,
    schema: c.schema ?? null,
    ...(c.contract === undefined ? {} : { contract: c.contract }),
    ...(c.patternMaxLength === undefined ? {} : { patternMaxLength: c.patternMaxLength }),
  };
}

export const configText = (config: ProjectConfig): string => `${JSON.stringify(config, null, 2)}\n`;

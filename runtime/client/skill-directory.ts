/**
 * `resources/directory/read` of the Skills extension (a server that declares `directoryRead: true`): the
 * direct children of a skill's folder, every page, checked (each child a resource with a string `uri` and
 * `name`; a directory's `mimeType` is `inode/directory`). Listing reads no file.
 */

import type { RequestOptions } from "../jsonrpc/connection.js";
import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { DIRECTORY_READ } from "../mcp/skills.js";
import type { SkillsPeer } from "./skills.js";

/** One child of a skill folder: a file or a folder (`mimeType: "inode/directory"`). */
export interface DirectoryEntry {
  readonly uri: string;
  readonly name: string;
  readonly mimeType?: string;
  readonly [field: string]: unknown;
}

/** Bounds a server whose cursors never end. */
const MAX_DIRECTORY_PAGES = 1000;

const malformed = (detail: string) => new McpError(ErrorCode.InvalidParams, `${DIRECTORY_READ}: ${detail}`);

/** Every child of the folder `uri` (a skill root `skill://<path>` or one of its folders), every page. */
export async function readSkillDirectory(
  peer: SkillsPeer,
  uri: string,
  options: RequestOptions,
): Promise<DirectoryEntry[]> {
  const children: DirectoryEntry[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; page <= MAX_DIRECTORY_PAGES; page++) {
    const result = await peer.request(
      DIRECTORY_READ,
      cursor === undefined ? { uri } : { uri, cursor },
      options,
    );
    if (!Array.isArray(result.resources)) throw malformed("the result has no resources array");
    for (const [i, child] of result.resources.entries()) {
      if (!isObject(child) || typeof child.uri !== "string" || typeof child.name !== "string")
        throw malformed(`resources[${i}] is not a resource with a string uri and name`);
      if (child.mimeType !== undefined && typeof child.mimeType !== "string")
        throw malformed(`resources[${i}].mimeType is not a string`);
      children.push(child as DirectoryEntry);
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return children;
    if (typeof next !== "string") throw malformed("nextCursor is not a string");
    if (cursors.has(next)) throw malformed(`repeats the cursor ${JSON.stringify(next)}`);
    cursors.add(next);
    cursor = next;
  }
  throw malformed(`has more than ${MAX_DIRECTORY_PAGES} pages`);
}

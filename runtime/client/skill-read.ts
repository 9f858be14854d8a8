/**
 * One read of a skill file, verified: `resources/read`, the one content for the URI, its bytes (text as
 * UTF-8, blob from base64), the size (checked even when a digest follows, as the extension asks) and the
 * digest the entry lists. What fails any of these is refused, never returned.
 */

import type { RequestOptions } from "../jsonrpc/connection.js";
import { isObject } from "../jsonrpc/messages.js";
import type { SkillFile } from "../mcp/skills.js";
import { fromBase64, utf8Bytes } from "../util/base64.js";
import { skillDigest } from "./skill-digest.js";
import { SkillVerificationError } from "./skill-error.js";

/** A verified file of a held skill. */
export interface SkillFileContent {
  readonly uri: string;
  readonly mimeType?: string;
  /** The bytes the digest was computed over. */
  readonly bytes: Uint8Array;
  /** The text, when the server sent the file as text. */
  readonly text?: string;
}

/** `resources/read` through the client (its result checked as every result is). */
export type ReadResource = (uri: string, options: RequestOptions) => Promise<Record<string, unknown>>;

/**
 * Reads `file` of the skill `skill` and verifies it against its entry; a file of a "dynamic" skill has
 * no entry (`size` and `digest` absent) and is only bounded by `maxBytes`.
 */
export async function readSkillFile(
  read: ReadResource,
  skill: string,
  file: SkillFile | { uri: string },
  maxBytes: number,
  options: RequestOptions,
): Promise<SkillFileContent> {
  const refuse = (refusal: "read" | "size" | "digest" | "limit", detail: string) =>
    new SkillVerificationError(skill, file.uri, refusal, detail);
  const result = await read(file.uri, options);
  const contents = Array.isArray(result.contents) ? result.contents : [];
  const mine = contents.filter((c) => isObject(c) && c.uri === file.uri);
  if (mine.length !== 1)
    throw refuse("read", `resources/read answered ${mine.length} contents for this URI, not one`);
  const content = mine[0] as Record<string, unknown>;
  let bytes: Uint8Array<ArrayBuffer> | undefined;
  if (typeof content.text === "string") bytes = utf8Bytes(content.text);
  else if (typeof content.blob === "string") bytes = fromBase64(content.blob);
  if (bytes === undefined) throw refuse("read", "the content is neither text nor base64 blob");
  if ("size" in file && bytes.length !== file.size)
    throw refuse("size", `read ${bytes.length} bytes where the entry lists ${file.size}`);
  if (bytes.length > maxBytes)
    throw refuse("limit", `read ${bytes.length} bytes, over the ${maxBytes} the skill may still read`);
  if ("digest" in file) {
    const digest = await skillDigest(bytes);
    if (digest !== file.digest)
      throw refuse("digest", `the content's digest ${digest} is not the entry's ${file.digest}`);
  }
  return {
    uri: file.uri,
    ...(typeof content.mimeType === "string" ? { mimeType: content.mimeType } : {}),
    bytes,
    ...(typeof content.text === "string" ? { text: content.text } : {}),
  };
}

/**
 * How a skill file goes on the wire: its mime type, by extension (a small table; an extension it does not
 * know is `application/octet-stream`), and its content as `text` when its bytes are UTF-8 that encodes back
 * to the very same bytes (so a client hashing the text's UTF-8 gets the digest), else as a base64 `blob`.
 */

import { extname } from "node:path";
import { SKILL_MD_MIME_TYPE } from "@mcp-codegen/runtime";

const MIME_TYPES: Readonly<Record<string, string>> = {
  ".md": SKILL_MD_MIME_TYPE,
  ".markdown": SKILL_MD_MIME_TYPE,
  ".txt": "text/plain",
  ".csv": "text/csv",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".cjs": "text/javascript",
  ".ts": "text/x-typescript",
  ".py": "text/x-python",
  ".sh": "text/x-shellscript",
  ".json": "application/json",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".toml": "application/toml",
  ".xml": "application/xml",
  ".pdf": "application/pdf",
  ".zip": "application/zip",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

export const mimeTypeOf = (fileName: string): string =>
  MIME_TYPES[extname(fileName).toLowerCase()] ?? "application/octet-stream";

/** Fatal on malformed UTF-8; a byte order mark is kept as text, so it round-trips. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const ENCODER = new TextEncoder();

/** The bytes as text when they round-trip through UTF-8 unchanged, else undefined. */
export function textOf(bytes: Uint8Array): string | undefined {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return undefined;
  }
  const again = ENCODER.encode(text);
  return again.length === bytes.length && again.every((b, i) => b === bytes[i]) ? text : undefined;
}

/** `{ text }` or `{ blob }` (base64) for resources/read. */
export const contentOf = (bytes: Uint8Array): { text: string } | { blob: string } => {
  const text = textOf(bytes);
  return text === undefined ? { blob: Buffer.from(bytes).toString("base64") } : { text };
};

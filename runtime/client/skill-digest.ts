/** A skill file's digest as the Skills extension writes it: `sha256:` and 64 lowercase hex digits (Web Crypto). */

export async function skillDigest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const byte of hash) hex += byte.toString(16).padStart(2, "0");
  return `sha256:${hex}`;
}

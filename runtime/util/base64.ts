/** base64 and base64url (RFC 4648) over bytes and UTF-8 text, with web-standard APIs only (no Buffer). */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const utf8Bytes = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);
export const utf8Text = (bytes: Uint8Array): string => decoder.decode(bytes);

/** Standard base64 with padding. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** base64url (§5) without padding. */
export const toBase64Url = (bytes: Uint8Array): string =>
  toBase64(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function binaryBytes(binary: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** The bytes of a standard base64 text (padding optional), or undefined when it is not one. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    return binaryBytes(atob(text));
  } catch {
    return undefined;
  }
}

/** The bytes of a base64url text (no padding), or undefined when it is not one. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return undefined;
  return binaryBytes(atob(text.replace(/-/g, "+").replace(/_/g, "/")));
}

/**
 * `ath` (RFC 9449 §4.2): base64url of the SHA-256 of an access token, binding a DPoP proof to the token it
 * travels with. The client puts it in its proofs; the resource server checks it.
 */

import { toBase64Url, utf8Bytes } from "../util/base64.js";

export async function accessTokenHash(accessToken: string): Promise<string> {
  return toBase64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", utf8Bytes(accessToken))));
}

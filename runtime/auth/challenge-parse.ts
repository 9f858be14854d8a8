/**
 * What an OAuth client reads of a 401/403: the Bearer (or DPoP) challenge's parameters, parsed by the
 * same grammar the resource server writes them with (`challenge.ts`). A malformed header gives no
 * challenge: the client then hands the refusal to its caller.
 */

import { parseChallenges } from "./challenge.js";

/** What an OAuth client reads from a 401/403: the Bearer (or DPoP) challenge's parameters. */
export interface BearerChallenge {
  readonly scheme: string;
  readonly error?: string;
  readonly errorDescription?: string;
  /** Space-separated scopes the resource asks for. */
  readonly scope?: string;
  /** RFC 9728 §5.1: where the Protected Resource Metadata is. */
  readonly resourceMetadata?: string;
}

/** The first Bearer or DPoP challenge of a response, or undefined when it has none. */
export function responseChallenge(response: Response): BearerChallenge | undefined {
  const header = response.headers.get("www-authenticate");
  const challenges = header ? parseChallenges(header) : undefined;
  const found = challenges?.find((c) => /^(bearer|dpop)$/i.test(c.scheme));
  if (!found) return undefined;
  const p = found.params;
  return {
    scheme: found.scheme.toLowerCase(),
    ...(p.error !== undefined && { error: p.error }),
    ...(p.error_description !== undefined && { errorDescription: p.error_description }),
    ...(p.scope !== undefined && { scope: p.scope }),
    ...(p.resource_metadata !== undefined && { resourceMetadata: p.resource_metadata }),
  };
}

/**
 * Reading a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3): the challenges it carries, each a
 * scheme and its auth-params. Parse only; a malformed header yields the challenges read before the fault,
 * never a throw, because a client must still be able to give the refusal to its caller.
 */

export interface AuthChallenge {
  /** Lower-cased: schemes compare case-insensitively. */
  readonly scheme: string;
  /** Parameter names lower-cased; values unquoted. */
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form (`Basic abc==`), when the challenge has one instead of parameters. */
  readonly token68?: string;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/;
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*(?=\s*(,|$))/;
/** `name=value` or `name="…"`: a parameter, not a token68 that ends in padding. */
const PARAM_START = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=\s*("|[!#$%&'*+.^_`|~0-9A-Za-z-])/;

/** Every challenge in the header value, in order. */
export function parseWwwAuthenticate(header: string): AuthChallenge[] {
  const challenges: AuthChallenge[] = [];
  let rest = header;
  const skip = (pattern: RegExp) => {
    rest = rest.replace(pattern, "");
  };
  skip(/^[\s,]+/);
  while (rest.length > 0) {
    const scheme = TOKEN.exec(rest)?.[0];
    if (!scheme) break;
    rest = rest.slice(scheme.length);
    const params: Record<string, string> = {};
    let token68: string | undefined;
    skip(/^[ \t]+/);
    const t68 = PARAM_START.test(rest) ? undefined : TOKEN68.exec(rest)?.[0];
    if (t68 !== undefined) {
      token68 = t68;
      rest = rest.slice(t68.length);
    } else {
      // auth-param list: name = token / quoted-string, separated by commas, until the next scheme.
      for (;;) {
        skip(/^[\s,]*/);
        const name = TOKEN.exec(rest)?.[0];
        if (!name) break;
        const after = rest.slice(name.length).replace(/^\s*/, "");
        if (!after.startsWith("=")) break; // the next challenge's scheme
        rest = after.slice(1).replace(/^\s*/, "");
        let value: string;
        if (rest.startsWith('"')) {
          const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
          if (!quoted) return [...challenges, { scheme: scheme.toLowerCase(), params }];
          value = quoted[1]!.replace(/\\(.)/g, "$1");
          rest = rest.slice(quoted[0].length);
        } else {
          value = TOKEN.exec(rest)?.[0] ?? "";
          rest = rest.slice(value.length);
        }
        params[name.toLowerCase()] = value;
      }
    }
    challenges.push({ scheme: scheme.toLowerCase(), params, ...(token68 !== undefined && { token68 }) });
    skip(/^[\s,]+/);
  }
  return challenges;
}

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
export function bearerChallenge(response: Response): BearerChallenge | undefined {
  const header = response.headers.get("www-authenticate");
  if (!header) return undefined;
  const found = parseWwwAuthenticate(header).find((c) => c.scheme === "bearer" || c.scheme === "dpop");
  if (!found) return undefined;
  const p = found.params;
  return {
    scheme: found.scheme,
    ...(p.error !== undefined && { error: p.error }),
    ...(p.error_description !== undefined && { errorDescription: p.error_description }),
    ...(p.scope !== undefined && { scope: p.scope }),
    ...(p.resource_metadata !== undefined && { resourceMetadata: p.resource_metadata }),
  };
}

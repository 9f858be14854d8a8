/**
 * `WWW-Authenticate` challenges (RFC 9110 §11.6.1), as the resource server writes them (RFC 6750 §3:
 * Bearer; RFC 9449 §7.1: DPoP) and as a client reads them: a header may hold several challenges, each a
 * scheme with either a token68 or `name=value` parameters (token or quoted-string). Malformed input is
 * refused (undefined), never thrown: the header comes from a peer.
 */

export interface Challenge {
  /** As written; compare case-insensitively (`challengeFor` does). */
  readonly scheme: string;
  /** Parameter names lower-cased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
  /** The token68 form (`Basic dXNlcg==`), in place of parameters. */
  readonly token68?: string;
}

/** The parameters the MCP authorization chapter uses, for `bearerChallenge`. */
export interface ChallengeParams {
  /** Default "Bearer". */
  scheme?: string;
  realm?: string;
  /** `invalid_request`, `invalid_token`, `insufficient_scope`, `invalid_dpop_proof`, `use_dpop_nonce`. */
  error?: string;
  errorDescription?: string;
  /** Space-separated in the header. */
  scope?: readonly string[];
  /** URL of the Protected Resource Metadata (RFC 9728 §5.1). */
  resourceMetadata?: string;
  /** DPoP: the proof algorithms accepted (RFC 9449 §7.1), space-separated. */
  algs?: readonly string[];
}

const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
/** What a quoted-string may hold once escaped: visible ASCII, space and tab (obs-text refused). */
const QUOTABLE = /^[\t\x20-\x7e]*$/;

/** One challenge as header text; throws TypeError on a value no quoted-string can carry (a programming error). */
export function formatChallenge(challenge: Challenge): string {
  if (!TOKEN.test(challenge.scheme)) throw new TypeError(`bad auth scheme: ${challenge.scheme}`);
  if (challenge.token68 !== undefined) {
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(challenge.token68)) throw new TypeError("bad token68");
    return `${challenge.scheme} ${challenge.token68}`;
  }
  const params = Object.entries(challenge.params).map(([name, value]) => {
    if (!TOKEN.test(name)) throw new TypeError(`bad auth-param name: ${name}`);
    if (!QUOTABLE.test(value))
      throw new TypeError(`auth-param ${name} holds a character a header cannot carry`);
    return `${name}="${value.replace(/["\\]/g, "\\$&")}"`;
  });
  return params.length === 0 ? challenge.scheme : `${challenge.scheme} ${params.join(", ")}`;
}

/** Several challenges as one header value. */
export function formatChallenges(challenges: readonly Challenge[]): string {
  return challenges.map(formatChallenge).join(", ");
}

/** A Bearer (or DPoP) challenge with the parameters MCP uses, in the order RFC 6750's examples give. */
export function bearerChallenge(p: ChallengeParams): Challenge {
  const params: Record<string, string> = {};
  if (p.realm !== undefined) params.realm = p.realm;
  if (p.error !== undefined) params.error = p.error;
  if (p.errorDescription !== undefined) params.error_description = p.errorDescription;
  if (p.scope !== undefined && p.scope.length > 0) params.scope = p.scope.join(" ");
  if (p.resourceMetadata !== undefined) params.resource_metadata = p.resourceMetadata;
  if (p.algs !== undefined && p.algs.length > 0) params.algs = p.algs.join(" ");
  return { scheme: p.scheme ?? "Bearer", params };
}

/** The first challenge of `scheme` (case-insensitive). */
export function challengeFor(challenges: readonly Challenge[], scheme: string): Challenge | undefined {
  const wanted = scheme.toLowerCase();
  return challenges.find((c) => c.scheme.toLowerCase() === wanted);
}

/** The scopes a challenge names (`scope`, space-separated), or undefined when it names none. */
export function challengeScopes(challenge: Challenge): string[] | undefined {
  const scope = challenge.params.scope;
  if (scope === undefined) return undefined;
  const scopes = scope.split(" ").filter((s) => s !== "");
  return scopes.length > 0 ? scopes : undefined;
}

/**
 * Every challenge of a `WWW-Authenticate` value (several headers joined by ", " included), or undefined
 * when the value does not follow the grammar: a bad character, an unterminated quoted-string, a
 * parameter without a scheme, a parameter named twice in one challenge.
 */
export function parseChallenges(header: string): Challenge[] | undefined {
  const reader = new Reader(header);
  const out: Challenge[] = [];
  let current: { scheme: string; params: Record<string, string>; token68?: string } | undefined;
  for (;;) {
    reader.skipListSeparators();
    if (reader.done) break;
    const start = reader.pos;
    const name = reader.token();
    if (name === undefined) return undefined;
    const afterName = reader.pos;
    reader.skipSpaces();
    if (reader.peek() === "=" && current !== undefined && current.token68 === undefined) {
      // `name = value`: a parameter of the current challenge.
      reader.pos++;
      reader.skipSpaces();
      const value = reader.peek() === '"' ? reader.quoted() : reader.token();
      if (value === undefined) return undefined;
      const key = name.toLowerCase();
      if (Object.hasOwn(current.params, key)) return undefined;
      current.params[key] = value;
      if (!reader.endOfItem()) return undefined;
      continue;
    }
    // A scheme: a new challenge, maybe followed by a token68 or its first parameter.
    reader.pos = afterName;
    if (reader.pos !== start && reader.done === false && reader.peek() !== " " && reader.peek() !== ",") {
      return undefined;
    }
    current = { scheme: name, params: Object.create(null) as Record<string, string> };
    out.push(current);
    if (!reader.skipSpaces()) continue;
    if (reader.done || reader.peek() === ",") continue;
    const token68 = reader.token68();
    if (token68 !== undefined) current.token68 = token68;
  }
  return out.map((c) => ({
    scheme: c.scheme,
    params: { ...c.params },
    ...(c.token68 !== undefined ? { token68: c.token68 } : {}),
  }));
}

/** A cursor over the header text. */
class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): string | undefined {
    return this.text[this.pos];
  }

  /** Skips spaces and tabs; whether any were skipped. */
  skipSpaces(): boolean {
    const start = this.pos;
    while (this.peek() === " " || this.peek() === "\t") this.pos++;
    return this.pos > start;
  }

  skipListSeparators(): void {
    while (this.peek() === " " || this.peek() === "\t" || this.peek() === ",") this.pos++;
  }

  token(): string | undefined {
    const start = this.pos;
    while (!this.done && TCHAR.test(this.peek()!)) this.pos++;
    return this.pos > start ? this.text.slice(start, this.pos) : undefined;
  }

  /** A token68 when it is all that follows the scheme (up to a comma or the end). */
  token68(): string | undefined {
    const match = TOKEN68.exec(this.text.slice(this.pos));
    if (!match) return undefined;
    const end = this.pos + match[0].length;
    let after = end;
    while (this.text[after] === " " || this.text[after] === "\t") after++;
    if (after < this.text.length && this.text[after] !== ",") return undefined;
    this.pos = after;
    return match[0];
  }

  quoted(): string | undefined {
    this.pos++;
    let value = "";
    while (!this.done) {
      const c = this.text[this.pos++]!;
      if (c === '"') return value;
      if (c === "\\") {
        if (this.done) return undefined;
        const escaped = this.text[this.pos++]!;
        if (!QUOTABLE.test(escaped)) return undefined;
        value += escaped;
      } else if (QUOTABLE.test(c)) value += c;
      else return undefined;
    }
    return undefined;
  }

  /** After a parameter: only spaces, then a comma or the end. */
  endOfItem(): boolean {
    this.skipSpaces();
    return this.done || this.peek() === ",";
  }
}

/**
 * What a `pattern` can cost a backtracking engine (JavaScript's), judged from its shape: a conservative
 * check that warns about every pattern that can backtrack catastrophically and, by design, about some
 * that cannot. No regex analysis library is installed; `recheck` or `redos-detector` would decide
 * exactly, where this one over-approximates:
 *
 * - exponential: a repetition that may run more than once (`*`, `+`, `{2,}`, `{n,m}` with m > 1) over a
 *   body that can match one string in more than one way, which this check reads as a body holding
 *   another variable repetition (star height above 1: `(a+)+`), an alternation (`(a|ab)*`; only
 *   alternatives that are distinct single characters, `(a|b)*`, count as unambiguous), a `?`, or a
 *   backreference.
 *   A body without these matches strings of one length in one way only, so it cannot split a string
 *   two ways.
 * - polynomial: otherwise, each variable repetition multiplies the ways to split a string by its length,
 *   and an unanchored pattern is tried at every start: degree = variable repetitions (+1 unanchored).
 *
 * The cost is then estimated against the longest string the pattern runs on (its `maxLength`, else the
 * validators' `patternMaxLength`): 2^n steps for exponential, n^degree for polynomial, warned above a
 * budget of about a second of one core at the slowest.
 */

/** Default longest string a pattern runs on without `maxLength`: quadratic backtracking stays ~20 ms. */
export const DEFAULT_PATTERN_MAX_LENGTH = 4096;

/** Backtracking steps a check may take before `generate` warns: ~0.1 s of quadratic search in V8. */
const POLYNOMIAL_BUDGET = 1e8;
/** Exponential steps cost more each (~40 ns in V8's `(a+)+`): 2^19 of them stay under ~20 ms. */
const EXPONENTIAL_LENGTH = 19;

export interface BacktrackingRisk {
  kind: "exponential" | "polynomial";
  /** For polynomial: the exponent of the string length. */
  degree: number;
  /** The largest `maxLength` that keeps the estimate within budget. */
  safeMaxLength: number;
}

/**
 * The risk of running `pattern` (JavaScript syntax, `u` flag) on strings of at most `longest`
 * characters, or undefined when its estimated cost stays within budget.
 */
export function backtrackingRisk(pattern: string, longest: number): BacktrackingRisk | undefined {
  const shape = shapeOf(pattern);
  if (shape.exponential) {
    return longest <= EXPONENTIAL_LENGTH
      ? undefined
      : { kind: "exponential", degree: Infinity, safeMaxLength: EXPONENTIAL_LENGTH };
  }
  const degree = shape.variable + (shape.anchored ? 0 : 1);
  if (degree < 2) return undefined;
  const safeMaxLength = Math.floor(POLYNOMIAL_BUDGET ** (1 / degree));
  return longest <= safeMaxLength ? undefined : { kind: "polynomial", degree, safeMaxLength };
}

/** One warning line for a risky pattern at `place`, with the fix. */
export function backtrackingWarning(
  place: string,
  pattern: string,
  risk: BacktrackingRisk,
  longest: number,
): string {
  const how =
    risk.kind === "exponential"
      ? "can backtrack exponentially (nested or overlapping repetition)"
      : `can backtrack in time growing as the length to the power ${risk.degree}`;
  return `${place}: pattern ${JSON.stringify(pattern)} ${how}: a string of ${longest} characters could block the server; add "maxLength" (at most ${risk.safeMaxLength}) or rewrite the pattern${risk.kind === "exponential" ? " without a repeated group that can match the same text two ways" : " with fewer repetitions that can match the same characters"}`;
}

interface Shape {
  exponential: boolean;
  /** Repetitions whose count varies (`*`, `+`, `{n,m}` with n < m and m > 1). */
  variable: number;
  /** Whether every match must start at the beginning (a leading `^`, no top-level alternation). */
  anchored: boolean;
}

/** An atom of the pattern, as far as backtracking cares. */
type Atom =
  | { kind: "char"; literal?: string }
  | { kind: "assertion" }
  | { kind: "backreference" }
  | { kind: "group"; alternatives: Term[][] };

interface Term {
  atom: Atom;
  min: number;
  max: number;
}

function shapeOf(pattern: string): Shape {
  const top = new Parser(pattern).alternatives();
  let variable = 0;
  let exponential = false;
  const visit = (alternatives: Term[][]): void => {
    for (const seq of alternatives) {
      for (const term of seq) {
        const varies = term.min !== term.max && term.max > 1;
        if (varies) variable++;
        if (term.max > 1 && ambiguous(term.atom)) exponential = true;
        if (term.atom.kind === "group") visit(term.atom.alternatives);
      }
    }
  };
  visit(top);
  const first = top[0]?.[0];
  const anchored = top.length === 1 && first?.atom.kind === "assertion" && pattern.startsWith("^");
  return { exponential, variable, anchored };
}

/**
 * Whether an atom, repeated, could match one string in more than one way (conservatively: yes when it
 * holds any alternation but one of distinct characters, any repetition whose count varies, even `?`,
 * since `(a?a?)*` splits like `(a|aa)*`, or a backreference).
 */
function ambiguous(atom: Atom): boolean {
  if (atom.kind === "backreference") return true;
  if (atom.kind !== "group") return false;
  if (atom.alternatives.length > 1) {
    const literals = atom.alternatives.map((seq) => {
      const only = seq.length === 1 ? seq[0]! : undefined;
      return only && only.min === 1 && only.max === 1 && only.atom.kind === "char"
        ? only.atom.literal
        : undefined;
    });
    if (literals.some((l) => l === undefined) || new Set(literals).size < literals.length) return true;
  }
  return atom.alternatives.some((seq) => seq.some((t) => t.min !== t.max || ambiguous(t.atom)));
}

/** A recursive-descent reader of JavaScript regular expression syntax, for its structure only. */
class Parser {
  #i = 0;
  constructor(readonly source: string) {}

  alternatives(): Term[][] {
    const out: Term[][] = [this.sequence()];
    while (this.source[this.#i] === "|") {
      this.#i++;
      out.push(this.sequence());
    }
    return out;
  }

  sequence(): Term[] {
    const terms: Term[] = [];
    while (this.#i < this.source.length && this.source[this.#i] !== "|" && this.source[this.#i] !== ")") {
      const atom = this.atom();
      const [min, max] = this.quantifier();
      terms.push({ atom, min, max });
    }
    return terms;
  }

  atom(): Atom {
    const s = this.source;
    const c = s[this.#i++]!;
    switch (c) {
      case "^":
      case "$":
        return { kind: "assertion" };
      case ".":
        return { kind: "char" };
      case "[":
        this.skipClass();
        return { kind: "char" };
      case "(": {
        if (s[this.#i] === "?") {
          const rest = s.slice(this.#i, this.#i + 3);
          if (rest === "?<=" || rest === "?<!") this.#i += 3;
          else if (rest.startsWith("?<")) this.#i = s.indexOf(">", this.#i) + 1;
          else this.#i += 2; // `?:`, `?=`, `?!`
        }
        const alternatives = this.alternatives();
        this.#i++; // ")"
        // A lookaround consumes nothing, but its own repetitions backtrack as a group's do.
        return { kind: "group", alternatives };
      }
      case "\\":
        return this.escape();
      default: {
        // One code point, which may be two UTF-16 units.
        const cp = s.codePointAt(this.#i - 1)!;
        if (cp > 0xffff) this.#i++;
        return { kind: "char", literal: String.fromCodePoint(cp) };
      }
    }
  }

  escape(): Atom {
    const s = this.source;
    const c = s[this.#i++] ?? "";
    if (c === "b" || c === "B") return { kind: "assertion" };
    if (/[1-9]/.test(c)) {
      while (/[0-9]/.test(s[this.#i] ?? "")) this.#i++;
      return { kind: "backreference" };
    }
    if (c === "k" && s[this.#i] === "<") {
      this.#i = s.indexOf(">", this.#i) + 1;
      return { kind: "backreference" };
    }
    if ((c === "p" || c === "P") && s[this.#i] === "{") {
      this.#i = s.indexOf("}", this.#i) + 1;
      return { kind: "char" };
    }
    if (c === "u" && s[this.#i] === "{") {
      const end = s.indexOf("}", this.#i);
      const literal = String.fromCodePoint(Number.parseInt(s.slice(this.#i + 1, end), 16));
      this.#i = end + 1;
      return { kind: "char", literal };
    }
    if (c === "u") {
      const literal = String.fromCharCode(Number.parseInt(s.slice(this.#i, this.#i + 4), 16));
      this.#i += 4;
      return { kind: "char", literal };
    }
    if (c === "x") {
      const literal = String.fromCharCode(Number.parseInt(s.slice(this.#i, this.#i + 2), 16));
      this.#i += 2;
      return { kind: "char", literal };
    }
    if (c === "c") {
      this.#i++;
      return { kind: "char" };
    }
    // Character classes (`\d`, `\w`, `\s` and their negations) match many characters; other escapes one.
    return /[dDwWsS]/.test(c) ? { kind: "char" } : { kind: "char", literal: c === "0" ? "\0" : c };
  }

  skipClass(): void {
    const s = this.source;
    while (this.#i < s.length && s[this.#i] !== "]") this.#i += s[this.#i] === "\\" ? 2 : 1;
    this.#i++;
  }

  /** `[min, max]` of the quantifier here (`[1, 1]` for none); a lazy `?` after it changes nothing. */
  quantifier(): [number, number] {
    const s = this.source;
    let range: [number, number] | undefined;
    const c = s[this.#i];
    if (c === "*") range = [0, Infinity];
    else if (c === "+") range = [1, Infinity];
    else if (c === "?") range = [0, 1];
    if (range) this.#i++;
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.#i));
      if (!m) return [1, 1];
      this.#i += m[0].length;
      const min = Number(m[1]);
      range = [min, m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3])];
    } else return [1, 1];
    if (s[this.#i] === "?") this.#i++;
    return range;
  }
}

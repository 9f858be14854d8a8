/**
 * What a `pattern` can cost a backtracking engine (JavaScript's), decided by recheck (an automaton-based
 * ReDoS checker, with a seeded fuzzer for what automata cannot model, such as backreferences and
 * lookarounds): whether the number of steps can grow exponentially or polynomially with the length of
 * the string, and with which degree.
 *
 * The cost is then estimated against the longest string the pattern runs on (its `maxLength`, else the
 * validators' `patternMaxLength`): 2^n steps for exponential, n^degree for polynomial, warned above a
 * budget of about a tenth of a second of one core. A pattern recheck cannot decide in time is warned
 * about as if it were cubic.
 */

/** Default longest string a pattern runs on without `maxLength`: quadratic backtracking stays ~20 ms. */
export const DEFAULT_PATTERN_MAX_LENGTH = 4096;

/** Backtracking steps a check may take before `generate` warns: ~0.1 s of quadratic search in V8. */
const POLYNOMIAL_BUDGET = 1e8;
/** Exponential steps cost more each (~40 ns in V8's `(a+)+`): 2^19 of them stay under ~20 ms. */
const EXPONENTIAL_LENGTH = 19;
/** How long recheck may take over one pattern, and its fuzzer's seed (the same answer every run). */
const CHECK_PARAMS = { timeout: 5_000, randomSeed: 21 };

export interface BacktrackingRisk {
  /** `undecided`: recheck could not tell in time. */
  kind: "exponential" | "polynomial" | "undecided";
  /** For polynomial: the exponent of the string length. */
  degree: number;
  /** The largest `maxLength` that keeps the estimate within budget. */
  safeMaxLength: number;
  /** A string that makes it backtrack, as recheck writes it (`'a'.repeat(31) + '\x00'`), when it found one. */
  attack?: string;
}

/**
 * The risk of running `pattern` (JavaScript syntax, `u` flag) on strings of at most `longest`
 * characters, or undefined when its cost stays within budget.
 */
export async function backtrackingRisk(
  pattern: string,
  longest: number,
): Promise<BacktrackingRisk | undefined> {
  // Loaded here, not with the module: the emitters import this file for its constant alone.
  const { check } = await import("recheck");
  const result = await check(pattern, "u", CHECK_PARAMS);
  if (result.status === "safe") return undefined;
  if (result.status === "unknown") {
    // The loader refuses invalid expressions, so what is left is a time-out or an unsupported feature.
    const safeMaxLength = Math.floor(POLYNOMIAL_BUDGET ** (1 / 3));
    return longest <= safeMaxLength ? undefined : { kind: "undecided", degree: 3, safeMaxLength };
  }
  const attack = result.attack.pattern;
  if (result.complexity.type === "exponential")
    return longest <= EXPONENTIAL_LENGTH
      ? undefined
      : { kind: "exponential", degree: Infinity, safeMaxLength: EXPONENTIAL_LENGTH, attack };
  const degree = result.complexity.degree;
  const safeMaxLength = Math.floor(POLYNOMIAL_BUDGET ** (1 / degree));
  return longest <= safeMaxLength ? undefined : { kind: "polynomial", degree, safeMaxLength, attack };
}

/**
 * One warning line for a risky pattern at `place`, with the fix; `unbounded` when the schema sets no
 * `maxLength` there, so that the validators bound it to the safe length meanwhile.
 */
export function backtrackingWarning(
  place: string,
  pattern: string,
  risk: BacktrackingRisk,
  longest: number,
  unbounded = false,
): string {
  const how =
    risk.kind === "exponential"
      ? "can backtrack exponentially"
      : risk.kind === "polynomial"
        ? `can backtrack in time growing as the length to the power ${risk.degree}`
        : "could not be shown safe from catastrophic backtracking in time";
  const example = risk.attack ? ` (on ${risk.attack}, for instance)` : "";
  const rewrite =
    risk.kind === "exponential"
      ? " without a repeated group that can match the same text two ways"
      : risk.kind === "polynomial"
        ? " with fewer repetitions that can match the same characters"
        : "";
  const meanwhile = unbounded
    ? `; until then it is checked only on strings of at most ${risk.safeMaxLength} characters`
    : "";
  return `${place}: pattern ${JSON.stringify(pattern)} ${how}${example}: a string of ${longest} characters could block the server; add "maxLength" (at most ${risk.safeMaxLength}) or rewrite the pattern${rewrite}${meanwhile}`;
}

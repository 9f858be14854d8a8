/**
 * A result as a handler writes it, which the generated server.ts names after the protocol's result
 * (`ListToolsResult`, …). Two things differ from the protocol type:
 *
 * - The members the runtime fills in (stateless era: `resultType`, and `ttlMs`/`cacheScope` where the
 *   result carries caching hints; see FILLED_RESULT_MEMBERS) are optional: a handler may leave them out.
 * - A map value (an index signature) also accepts `undefined`. JSON leaves out a member whose value is
 *   undefined, and it is what TypeScript infers for a key only some elements write: the return type of
 *   `() => ({ tools: [{ …, properties: { a: … } }, { …, properties: { b: … } }] })` is widened to
 *   `properties: { a: …; b?: undefined }`, which a map of schemas would otherwise refuse.
 */
export type Returned<R, Filled extends PropertyKey = never> = Sendable<Omit<R, Filled>> & {
  [K in keyof R & Filled]?: Sendable<R[K]>;
};

/** `T` with every map value also accepting `undefined`; everything else as it is. */
export type Sendable<T> = T extends readonly (infer E)[]
  ? Sendable<E>[]
  : T extends object
    ? object extends T
      ? T
      : { [K in keyof T]: string extends K ? Sendable<T[K]> | undefined : Sendable<T[K]> }
    : T;

/**
 * Result members the runtime fills in for a stateless-era request when the handler leaves them out:
 * `every` result, and the `cacheable` ones (whose result carries caching hints).
 */
export const FILLED_RESULT_MEMBERS = {
  every: ["resultType"],
  cacheable: ["ttlMs", "cacheScope"],
} as const;

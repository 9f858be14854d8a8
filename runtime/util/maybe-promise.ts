/** A value now, or later from a store or bus that keeps it elsewhere: in-memory defaults answer at once. */
export type MaybePromise<T> = T | Promise<T>;

/** `1 prompt`, `2 prompts`, `0 resource templates`: a count with its noun, singular for exactly one. */
export const counted = (n: number, noun: string, plural = `${noun}s`): string =>
  `${n} ${n === 1 ? noun : plural}`;

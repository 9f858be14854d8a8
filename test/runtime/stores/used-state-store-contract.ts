/**
 * What every UsedStateStore must do, as a test suite any implementation runs: `usedStateStoreContract(name,
 * make)` with a factory of empty stores.
 */
import { describe, expect, it } from "vitest";
import type { UsedStateStore } from "../../../runtime/mcp/used-states.js";

export function usedStateStoreContract(
  name: string,
  make: () => UsedStateStore | Promise<UsedStateStore>,
): void {
  describe(`UsedStateStore contract: ${name}`, () => {
    it("claims an id once: true the first time, false after", async () => {
      const store = await make();
      const expires = Date.now() + 60_000;
      expect(await store.claim("s1", expires)).toBe(true);
      expect(await store.claim("s1", expires)).toBe(false);
      expect(await store.claim("s2", expires)).toBe(true);
    });

    it("concurrent claims of one id: exactly one wins", async () => {
      const store = await make();
      const expires = Date.now() + 60_000;
      const results = await Promise.all(Array.from({ length: 10 }, () => store.claim("race", expires)));
      expect(results.filter((r) => r === true)).toHaveLength(1);
    });
  });
}

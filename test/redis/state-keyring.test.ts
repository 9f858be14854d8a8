/**
 * RedisStateKeyring against a real redis-server: two instances (two sealers, two connections) sharing
 * one Redis open each other's requestStates; a rotation on one in the middle of a round does not break
 * the round on the other; expired keys neither seal nor open.
 */
import { randomUUID } from "node:crypto";
import { connectRedis, type OwnedRedisConnection, RedisStateKeyring } from "@mcp-codegen/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindingOf } from "../../runtime/mcp/round-binding.js";
import { StateSealer } from "../../runtime/mcp/state-sealer.js";
import { redisSuite, startRedis, type TestRedis, withoutRedis } from "../fixtures/redis/redis-server.js";

describe.skipIf(withoutRedis)(redisSuite("RedisStateKeyring"), async () => {
  let redis: TestRedis;
  let a: OwnedRedisConnection;
  let b: OwnedRedisConnection;
  const binding = await bindingOf("tools/call", "pay", "{}", "anyone");
  const round = { answers: {}, asked: { confirm: "elicitation/create" } };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    redis = await startRedis();
    a = await connectRedis(redis.url);
    b = await connectRedis(redis.url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.dispose();
  });

  it("a state sealed on one instance opens on the other: the first key is made once, for both", async () => {
    const prefix = `t-${randomUUID()}:`;
    const [ringA, ringB] = [new RedisStateKeyring(a, { prefix }), new RedisStateKeyring(b, { prefix })];
    const [keysA, keysB] = await Promise.all([ringA.keys(), ringB.keys()]);
    expect(keysA.map((k) => k.id)).toEqual(keysB.map((k) => k.id));
    expect(keysA).toHaveLength(1);
    expect(Buffer.from(keysA[0]!.secret as string, "base64url")).toHaveLength(32);
    const sealed = await new StateSealer(ringA, 60_000).seal(round, binding);
    expect(sealed.startsWith(`${keysA[0]!.id}.`)).toBe(true);
    expect(await new StateSealer(ringB, 60_000).open(sealed, binding)).toMatchObject(round);
    // A keyring of another prefix has other keys: it cannot open it.
    const other = new StateSealer(new RedisStateKeyring(b, { prefix: `t-${randomUUID()}:` }), 60_000);
    await expect(other.open(sealed, binding)).rejects.toThrow(/integrity|key id/);
  });

  it("a rotation on A in the middle of a round: B still opens the round's state until the old key expires", async () => {
    const prefix = `t-${randomUUID()}:`;
    const cacheMs = 150;
    const ringA = new RedisStateKeyring(a, { prefix, cacheMs });
    const ringB = new RedisStateKeyring(b, { prefix, cacheMs });
    const [sealA, sealB] = [new StateSealer(ringA, 60_000), new StateSealer(ringB, 60_000)];
    const inFlight = await sealA.seal(round, binding);
    const old = inFlight.slice(0, inFlight.indexOf("."));
    await sealB.open(inFlight, binding); // B has cached the keys before the rotation
    const rotated = await ringA.rotate(300);
    // Until the new key starts (cacheMs), both keep sealing with the old one; B, whose cache predates
    // the rotation, still opens everything sealed meanwhile.
    expect((await sealA.seal(round, binding)).startsWith(`${old}.`)).toBe(true);
    expect(await sealB.open(inFlight, binding)).toMatchObject(round);
    await sleep(cacheMs + 30);
    const fresh = await sealA.seal(round, binding);
    expect(fresh.startsWith(`${rotated}.`)).toBe(true);
    expect(await sealB.open(fresh, binding)).toMatchObject(round);
    expect(await sealB.open(inFlight, binding)).toMatchObject(round); // the old key has not expired
    expect((await ringB.keys()).map((k) => k.id)).toEqual([rotated, old]);
    await sleep(350);
    // Expired: the old key neither opens nor seals, on either instance; Redis forgets it.
    await expect(sealB.open(inFlight, binding)).rejects.toThrow(/does not have \(key id/);
    expect((await ringA.keys()).map((k) => k.id)).toEqual([rotated]);
    expect(
      await a.client.eval("return redis.call('HKEYS', KEYS[1])", { keys: [ringA.key], arguments: [] }),
    ).toEqual([rotated]);
  });
});

/**
 * oidc-provider's storage for one test authorization server: everything in one Map owned by that server
 * (the library's own memory adapter shares one module-level store among every provider in the process).
 * Entries expire with the lifetime oidc-provider gives them.
 */
import type { Adapter, AdapterPayload } from "oidc-provider";

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

export class MapStore {
  readonly entries = new Map<string, Entry>();
  /** Secondary keys (session uid, user code) → primary key. */
  readonly aliases = new Map<string, string>();
  /** Grant id → keys of what was issued under it, for revocation. */
  readonly grants = new Map<string, Set<string>>();

  get(key: string): AdapterPayload | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  adapter = (model: string): Adapter => new MapAdapter(model, this);
}

class MapAdapter implements Adapter {
  readonly #model: string;
  readonly #store: MapStore;

  constructor(model: string, store: MapStore) {
    this.#model = model;
    this.#store = store;
  }

  #key(id: string) {
    return `${this.#model}:${id}`;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
    const key = this.#key(id);
    const expiresAt =
      typeof expiresIn === "number" ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY;
    this.#store.entries.set(key, { payload, expiresAt });
    if (payload.uid !== undefined) this.#store.aliases.set(`uid:${payload.uid}`, key);
    if (payload.userCode !== undefined) this.#store.aliases.set(`userCode:${payload.userCode}`, key);
    if (payload.grantId !== undefined) {
      const members = this.#store.grants.get(payload.grantId) ?? new Set<string>();
      members.add(key);
      this.#store.grants.set(payload.grantId, members);
    }
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    return this.#store.get(this.#key(id));
  }

  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.aliases.get(`uid:${uid}`);
    return key === undefined ? undefined : this.#store.get(key);
  }

  async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    const key = this.#store.aliases.get(`userCode:${userCode}`);
    return key === undefined ? undefined : this.#store.get(key);
  }

  async consume(id: string): Promise<void> {
    const payload = this.#store.get(this.#key(id));
    if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id: string): Promise<void> {
    this.#store.entries.delete(this.#key(id));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    for (const key of this.#store.grants.get(grantId) ?? []) this.#store.entries.delete(key);
    this.#store.grants.delete(grantId);
  }
}

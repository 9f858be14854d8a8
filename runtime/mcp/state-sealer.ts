/**
 * Sealing of the `requestState` a stateless-era server hands a client between input rounds. The state
 * is encrypted and authenticated (AES-256-GCM), so a client can neither read, forge nor alter it, and
 * bound to the request that received it (method, target, a digest of its arguments, its caller: see
 * round-binding.ts) and to a short lifetime. A token is `<key id>.<base64url(iv ‖ ciphertext)>`: keys
 * rotate by id, the first seals, all open until they expire (a StateKeyring shares them between instances). WebCrypto only: the same code runs on Node, Bun, Deno and
 * Workers.
 */

import { ErrorCode, McpError } from "../jsonrpc/messages.js";
import { fromBase64Url, toBase64Url, utf8Bytes, utf8Text } from "../util/base64.js";
import type { RoundBinding } from "./round-binding.js";
import { InMemoryStateKeyring, isKeyring, type StateKeyring } from "./state-keyring.js";

/** What a sealed `requestState` carries from one round to the next. */
export interface RoundState {
  /** Answers the handler consumed in earlier rounds, by input key. */
  answers: Record<string, unknown>;
  /** Keys asked for in the last round, with their methods (to validate the retry's inputResponses). */
  asked: Record<string, string>;
  /** The handler's own requestState, if it returned one. */
  user?: string;
}

/** An opened state: what it carries, what it was bound to, its id (for single use) and expiry. */
export interface OpenedState extends RoundState, RoundBinding {
  id: string;
  /** Expiry, ms since the epoch. */
  expires: number;
}

/**
 * The key a state is to be sealed with, taken from the keyring ahead of the seal: a retry reads it with
 * the keys that open its state (`openWithSealing`), so once its state is claimed and its handler has run,
 * sealing the next round asks no store that could fail.
 */
export interface SealingKey {
  readonly id: string;
  readonly key: Promise<CryptoKey>;
}

/** A sealing key: its id travels in the clear in each token, to pick the key that opens it. */
export interface StateKey {
  id: string;
  /** At least 32 random bytes (or a string with as much entropy); HKDF-SHA-256 derives the AES key. */
  secret: string | Uint8Array;
  /** When it stops sealing and opening, ms since the epoch (absent: never); see StateKeyring. */
  expires?: number;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The key id of the random key drawn when no key is configured. */
const RANDOM_KEY_ID = "local";
/** HKDF's `info`: keys derived for sealing request states, and nothing else. */
const HKDF_INFO = "mcp-codegen requestState AES-256-GCM";

export class StateSealer {
  /** Where the keys come from; undefined: one random key, drawn for this sealer. */
  readonly #keyring: StateKeyring | undefined;
  /** Keys made from secrets, by key id, with the secret each was made from. */
  readonly #derived = new Map<string, { secret: StateKey["secret"]; key: Promise<CryptoKey> }>();
  #random: Promise<CryptoKey> | undefined;

  /**
   * `keys` undefined or empty: one random key, drawn for this sealer (a second instance cannot open its
   * states). A keyring is asked for its keys on every seal and open: shared by instances, it rotates them.
   */
  constructor(
    keys: readonly StateKey[] | StateKeyring | undefined,
    readonly ttlMs: number,
  ) {
    if (isKeyring(keys)) {
      this.#keyring = keys;
      return;
    }
    if (!keys || keys.length === 0) return;
    const ids = new Set<string>();
    for (const key of keys) {
      checkKey(key);
      if (ids.has(key.id)) throw new TypeError(`stateKeys: the key id "${key.id}" is given twice`);
      ids.add(key.id);
    }
    this.#keyring = new InMemoryStateKeyring(keys);
  }

  /**
   * The key of `key`, made on first use, not in the constructor: Workers allow no random values or
   * crypto work while a module loads, where a server may be built.
   */
  #key(key: StateKey): Promise<CryptoKey> {
    const made = this.#derived.get(key.id);
    if (made && made.secret === key.secret) return made.key;
    checkKey(key);
    const derived = derivedKey(secretBytes(key.secret)!);
    this.#derived.set(key.id, { secret: key.secret, key: derived });
    return derived;
  }

  /** The random key, drawn on first use. */
  #randomKey(): Promise<CryptoKey> {
    this.#random ??= randomKey();
    return this.#random;
  }

  /** The sealing key's id and key: the keyring's first unexpired key, else the random one. */
  async #sealing(): Promise<SealingKey> {
    return this.#sealingOf(this.#keyring ? await this.#keyring.keys() : []);
  }

  /** The sealing key among `keys` (the keyring's, read by the caller). */
  #sealingOf(keys: readonly StateKey[]): SealingKey {
    if (!this.#keyring) return { id: RANDOM_KEY_ID, key: this.#randomKey() };
    const now = Date.now();
    const first = keys.find((key) => key.expires === undefined || key.expires > now);
    if (!first) throw new Error("stateKeys: the keyring holds no key that has not expired");
    this.#forgetRetired(keys);
    return { id: first.id, key: this.#key(first) };
  }

  /** The key among `keys` that opens states sealed under `id`, or undefined when there is none (or it expired). */
  #opening(id: string, keys: readonly StateKey[]): Promise<CryptoKey> | undefined {
    if (!this.#keyring) return id === RANDOM_KEY_ID ? this.#randomKey() : undefined;
    const key = keys.find((k) => k.id === id);
    if (!key || (key.expires !== undefined && key.expires <= Date.now())) return undefined;
    return this.#key(key);
  }

  /** Whether its keyring can serve now (a random key always can). */
  healthy(): boolean | Promise<boolean> {
    return this.#keyring?.healthy?.() ?? true;
  }

  /** Drops keys made for ids the keyring no longer holds, once there are a few. */
  #forgetRetired(keys: readonly StateKey[]): void {
    if (this.#derived.size <= keys.length + 4) return;
    const live = new Set(keys.map((key) => key.id));
    for (const id of this.#derived.keys()) if (!live.has(id)) this.#derived.delete(id);
  }

  /** `sealing`: the key read ahead (openWithSealing), else the keyring's sealing key now. */
  async seal(state: RoundState, binding: RoundBinding, sealing?: SealingKey): Promise<string> {
    const opened: OpenedState = {
      ...state,
      ...binding,
      id: toBase64Url(crypto.getRandomValues(new Uint8Array(16))),
      expires: Date.now() + this.ttlMs,
    };
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    sealing ??= await this.#sealing();
    const sealed = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: utf8Bytes(sealing.id) },
        await sealing.key,
        utf8Bytes(JSON.stringify(opened)),
      ),
    );
    const out = new Uint8Array(IV_BYTES + sealed.length);
    out.set(iv);
    out.set(sealed, IV_BYTES);
    return `${sealing.id}.${toBase64Url(out)}`;
  }

  /**
   * The state, or an InvalidParams error saying why not: altered, forged or sealed with a key this
   * server lacks; issued for another method or target, for other arguments, to another caller; expired.
   * Whether it was already used is the caller's to check (UsedStateStore).
   */
  async open(token: unknown, binding: RoundBinding): Promise<OpenedState> {
    return (await this.#open(token, binding)).state;
  }

  /**
   * open(), and the key the next round's state will be sealed with, from one read of the keyring: the
   * retry that claims this state then needs no store after its handler has run (a keyring failing then
   * would leave the state used and the client without its next one).
   */
  async openWithSealing(
    token: unknown,
    binding: RoundBinding,
  ): Promise<{ state: OpenedState; sealing: SealingKey }> {
    const { state, keys } = await this.#open(token, binding);
    return { state, sealing: this.#sealingOf(keys) };
  }

  /** The state, and the keyring's keys it was opened with. */
  async #open(
    token: unknown,
    binding: RoundBinding,
  ): Promise<{ state: OpenedState; keys: readonly StateKey[] }> {
    const integrity = (why: string) => invalid(`requestState integrity check failed: ${why}`);
    if (typeof token !== "string") throw integrity("not a string");
    const cut = token.indexOf(".");
    const keyId = token.slice(0, cut);
    const bytes = cut > 0 && KEY_ID.test(keyId) ? fromBase64Url(token.slice(cut + 1)) : undefined;
    if (!bytes || bytes.length < IV_BYTES + TAG_BYTES) throw integrity("malformed");
    const keys = this.#keyring ? await this.#keyring.keys() : [];
    const key = this.#opening(keyId, keys);
    if (!key)
      // A key retired by a rotation is one this server no longer has: the same answer.
      throw integrity(`sealed with a key this server does not have (key id "${keyId}")`);
    let plain: ArrayBuffer;
    try {
      plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: utf8Bytes(keyId) },
        await key,
        bytes.subarray(IV_BYTES),
      );
    } catch {
      throw integrity("altered, forged, or sealed by a server with another key");
    }
    // Only this sealer wrote what decrypts: its shape is known.
    const state = JSON.parse(utf8Text(new Uint8Array(plain))) as OpenedState;
    if (state.method !== binding.method || state.target !== binding.target)
      throw invalid(
        `requestState was issued for another request (${state.method} ${state.target ?? ""}), not this one`,
      );
    if (state.args !== binding.args)
      throw invalid(
        "requestState was issued for other arguments: a retry must repeat the params of the request that received it",
      );
    if (state.caller !== binding.caller) throw invalid("requestState was issued to another caller");
    if (Date.now() > state.expires)
      throw invalid(
        `requestState expired (a state is valid ${Math.round(this.ttlMs / 1000)} s): send the request again without it`,
      );
    return { state, keys };
  }
}

/** A key's id and secret as the sealer needs them, else a TypeError naming what is wrong. */
function checkKey(key: StateKey): void {
  if (typeof key?.id !== "string" || !KEY_ID.test(key.id))
    throw new TypeError(`stateKeys: a key id must match ${KEY_ID} (got ${JSON.stringify(key?.id)})`);
  if (!secretBytes(key.secret)?.length)
    throw new TypeError(`stateKeys: the secret of key "${key.id}" must be a non-empty string or Uint8Array`);
  if (key.expires !== undefined && !Number.isFinite(key.expires))
    throw new TypeError(`stateKeys: the expiry of key "${key.id}" must be a time in ms since the epoch`);
}

function secretBytes(secret: unknown): Uint8Array<ArrayBuffer> | undefined {
  if (typeof secret === "string") return utf8Bytes(secret);
  return secret instanceof Uint8Array ? new Uint8Array(secret) : undefined;
}

const invalid = (message: string) => new McpError(ErrorCode.InvalidParams, message);

function randomKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: "AES-GCM", length: 256 }, false, [
    "encrypt",
    "decrypt",
  ]) as Promise<CryptoKey>;
}

async function derivedKey(secret: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  const base = await crypto.subtle.importKey("raw", secret, "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8Bytes(HKDF_INFO) },
    base,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

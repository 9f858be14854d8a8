/**
 * Where Streamable HTTP keeps the events it sent on each SSE stream, so that a client reconnecting with
 * `Last-Event-ID` gets what it missed, on the stream it missed it on. Event ids are opaque to the
 * transport; a store makes them name their stream.
 */

import type { JsonRpcMessage } from "../jsonrpc/messages.js";
import { type Linked, LinkedSet } from "../util/collections.js";

/** The empty object a stream's priming event carries: it holds a place in the stream and is never replayed. */
export type PrimingEvent = Record<string, never>;

export interface EventStore {
  /**
   * Stores a message sent on `streamId`: its event id, unique across all streams. A store that holds
   * events in memory answers at once; one that writes elsewhere returns a promise.
   */
  append(
    streamId: string,
    message: JsonRpcMessage | PrimingEvent,
    /** The stream's last event (its last owed response): a store may keep the stream for less from now on. */
    last?: boolean,
  ): string | Promise<string>;
  /**
   * Optional: true when `append` always answers at once (never a promise), as the in-memory store does.
   * Otherwise an SSE answer without a priming event waits for its first event to be stored before its
   * 200 goes out, so that a store that fails is answered 503 rather than with a stream that ends.
   */
  readonly immediate?: boolean;
  /**
   * Sends, in order, every event stored after `lastEventId` on that event's stream; resolves to the
   * stream's id, or undefined when the event id is unknown (never issued, or evicted).
   */
  replayAfter(
    lastEventId: string,
    send: (id: string, message: JsonRpcMessage) => Promise<void>,
  ): Promise<string | undefined>;
  /**
   * Optional: true when streams go by themselves after an age bound (a shared store): a stream delivered
   * live in full is then left to expire rather than deleted, one round trip less per call.
   */
  readonly expiresStreams?: boolean;
  /** Optional: forget a stream that no client can resume any more (its session closed). */
  deleteStream?(streamId: string): void | Promise<void>;
  /** Optional: whether the store can serve now (a readiness probe asks; absent: always). */
  healthy?(): boolean | Promise<boolean>;
}

export const isPriming = (message: JsonRpcMessage | PrimingEvent): message is PrimingEvent =>
  !("jsonrpc" in message);

interface StoredStream extends Linked<StoredStream> {
  readonly id: string;
  /** Sequence number of events[0]; ids are `<streamId>#<seq>`. */
  first: number;
  events: (JsonRpcMessage | PrimingEvent)[];
}

const SEPARATOR = "#";

/**
 * Keeps the last `maxEventsPerStream` events of the `maxStreams` most recently written streams in memory.
 * Older events and streams are dropped: a client that falls that far behind resumes with a gap.
 */
export class InMemoryEventStore implements EventStore {
  readonly #streams = new Map<string, StoredStream>();
  /** Least recently written first out; writing a stream relinks it, nothing is rehashed. */
  readonly #recent = new LinkedSet<StoredStream>();
  readonly #maxEvents: number;
  readonly #maxStreams: number;
  readonly immediate: boolean = true;

  constructor(opts: { maxEventsPerStream?: number; maxStreams?: number } = {}) {
    this.#maxEvents = Math.max(1, opts.maxEventsPerStream ?? 1000);
    this.#maxStreams = Math.max(1, opts.maxStreams ?? 1000);
  }

  /** Streams currently held (for tests and metrics). */
  get streamCount(): number {
    return this.#streams.size;
  }

  append(streamId: string, message: JsonRpcMessage | PrimingEvent): string {
    const stream = this.#writable(streamId);
    stream.events.push(message);
    if (stream.events.length > this.#maxEvents) {
      stream.events.shift();
      stream.first++;
    }
    return `${streamId}${SEPARATOR}${stream.first + stream.events.length - 1}`;
  }

  async replayAfter(
    lastEventId: string,
    send: (id: string, message: JsonRpcMessage) => Promise<void>,
  ): Promise<string | undefined> {
    const at = lastEventId.lastIndexOf(SEPARATOR);
    const streamId = lastEventId.slice(0, at);
    const seq = Number(lastEventId.slice(at + 1));
    const stream = this.#streams.get(streamId);
    if (at < 0 || !Number.isSafeInteger(seq) || !stream) return undefined;
    if (seq >= stream.first + stream.events.length) return undefined; // never issued
    // A snapshot: events appended while a send awaits are the transport's to deliver live.
    const from = Math.max(seq + 1, stream.first);
    const events = stream.events.slice(from - stream.first);
    for (const [i, message] of events.entries()) {
      if (!isPriming(message)) await send(`${streamId}${SEPARATOR}${from + i}`, message);
    }
    return streamId;
  }

  deleteStream(streamId: string): void {
    const stream = this.#streams.get(streamId);
    if (!stream) return;
    this.#streams.delete(streamId);
    this.#recent.delete(stream);
  }

  /** The stream, made most recently written; the least recently written is dropped when full. */
  #writable(streamId: string): StoredStream {
    let stream = this.#streams.get(streamId);
    if (stream) {
      this.#recent.touch(stream);
      return stream;
    }
    stream = { id: streamId, first: 0, events: [], linkPrev: undefined, linkNext: undefined };
    this.#streams.set(streamId, stream);
    this.#recent.add(stream);
    if (this.#streams.size > this.#maxStreams) this.deleteStream(this.#recent.oldest!.id);
    return stream;
  }
}

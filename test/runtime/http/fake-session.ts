/** A session the SessionRegistry can hold and expire, counting its closes (session-registry and store tests). */
import type { Expirable } from "../../../runtime/http/session-registry.js";

export class FakeSession implements Expirable {
  lastActive = 0;
  linkPrev?: Expirable;
  linkNext?: Expirable;
  closed = 0;
  constructor(
    readonly id: string,
    public idle = true,
    public established = true,
    public client?: string,
  ) {}
  async close(): Promise<void> {
    this.closed++;
  }
}

/**
 * What both sides of `subscriptions/listen` (stateless era) agree on: the filter a client asks for and the
 * server acknowledges, and the `_meta` tag naming the subscription a notification belongs to.
 */

import { isObject, isRequestId, type RequestId } from "../jsonrpc/messages.js";
import { META } from "./request-meta.js";

export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** URIs whose `notifications/resources/updated` are wanted. */
  resourceSubscriptions?: string[];
  [key: string]: unknown;
}

/** The subscription a notification belongs to, from its `_meta`. */
export function subscriptionIdOf(params: unknown): RequestId | undefined {
  const meta = isObject(params) ? params._meta : undefined;
  const id = isObject(meta) ? meta[META.subscriptionId] : undefined;
  return isRequestId(id) ? id : undefined;
}

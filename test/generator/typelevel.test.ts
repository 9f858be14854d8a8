/**
 * Type-level facts per version (checked by `tsc --noEmit`, which `npm test` runs first) and the same
 * facts at run time through the generated method tables.
 */
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as z from "zod";
import * as V2024 from "../../generated/2024-11-05/index.js";
import type * as S2024 from "../../generated/2024-11-05/schemas.js";
import * as V202503 from "../../generated/2025-03-26/index.js";
import * as V202506 from "../../generated/2025-06-18/index.js";
import * as V202511 from "../../generated/2025-11-25/index.js";
import * as V2026 from "../../generated/2026-07-28/index.js";
import * as S2026 from "../../generated/2026-07-28/schemas.js";
import * as VDraft from "../../generated/draft/index.js";

describe("2024-11-05", () => {
  it("types a request, a result and a notification", () => {
    expectTypeOf<V2024.CallToolRequest["method"]>().toEqualTypeOf<"tools/call">();
    expectTypeOf<V2024.ClientRequests["tools/call"]["params"]["name"]>().toEqualTypeOf<string>();
    expectTypeOf<V2024.ClientRequests["tools/call"]["result"]>().toEqualTypeOf<V2024.CallToolResult>();
    expectTypeOf<V2024.CallToolResult["content"][number]>().toEqualTypeOf<
      V2024.TextContent | V2024.ImageContent | V2024.EmbeddedResource
    >();
    expectTypeOf<
      V2024.ServerNotifications["notifications/progress"]["params"]["progressToken"]
    >().toEqualTypeOf<string | number>();
    expectTypeOf<z.infer<typeof S2024.LoggingLevelSchema>>().toEqualTypeOf<V2024.LoggingLevel>();
    expect(V2024.PROTOCOL_VERSION).toBe("2024-11-05");
    expect(V2024.clientRequests["tools/call"].params({ name: "echo" })).toBeUndefined();
    expect(V2024.clientRequests["tools/call"].params({})).toEqual({ path: ["name"], message: "Required" });
  });
});

describe("2025-03-26", () => {
  it("types a request, a result and a notification", () => {
    expectTypeOf<
      V202503.ClientRequests["completion/complete"]["result"]
    >().toEqualTypeOf<V202503.CompleteResult>();
    expectTypeOf<V202503.CallToolResult["content"][number]>().toEqualTypeOf<
      V202503.TextContent | V202503.ImageContent | V202503.AudioContent | V202503.EmbeddedResource
    >();
    expectTypeOf<V202503.ToolAnnotations["destructiveHint"]>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<
      V202503.ServerNotifications["notifications/message"]["params"]["level"]
    >().toEqualTypeOf<V202503.LoggingLevel>();
    expect(V202503.clientRequests["completion/complete"].capability).toEqual({
      side: "server",
      path: ["completions"],
      leaf: "object",
    });
    expect(V202503.SUPPORTED_VERSIONS).toEqual([
      { version: "2025-03-26", batches: true },
      { version: "2024-11-05", batches: false },
    ]);
    expect(V202503.clientRequests["tools/call"].errorAsResult).toBe(true);
  });
});

describe("2025-06-18", () => {
  it("types a request, a result and a notification", () => {
    expectTypeOf<V202506.ServerRequests["elicitation/create"]["result"]["action"]>().toEqualTypeOf<
      "accept" | "decline" | "cancel"
    >();
    expectTypeOf<V202506.CallToolResult["structuredContent"]>().toEqualTypeOf<
      { [k: string]: unknown } | undefined
    >();
    expectTypeOf<V202506.ClientNotifications["notifications/roots/list_changed"]["params"]>().not.toBeAny();
    expect(V202506.serverRequests["elicitation/create"].result({ action: "maybe" })).toEqual({
      path: ["action"],
      message: 'Expected one of "accept", "cancel", "decline"',
    });
  });
});

describe("2025-11-25", () => {
  it("types a request, a result and a notification", () => {
    expectTypeOf<
      V202511.ClientRequests["tools/call"]["params"]
    >().toEqualTypeOf<V202511.CallToolRequestParams>();
    expectTypeOf<V202511.ClientRequests["tasks/get"]["result"]>().toEqualTypeOf<V202511.GetTaskResult>();
    expectTypeOf<
      V202511.ServerNotifications["notifications/tasks/status"]["params"]["status"]
    >().toEqualTypeOf<V202511.TaskStatus>();
    expect(V202511.LIFECYCLE).toBe("initialize");
    expect(
      V202511.clientRequests["tools/call"].result({ content: [{ type: "text", text: "hi" }] }),
    ).toBeUndefined();
    expect(V202511.clientRequests["tools/call"].result({ content: [{ type: "text" }] })).toEqual({
      path: ["content", 0, "text"],
      message: "Required",
    });
  });
});

describe("2026-07-28 and draft", () => {
  it("types a request, a result and a notification", () => {
    expectTypeOf<V2026.ClientRequests["server/discover"]["result"]>().toEqualTypeOf<V2026.DiscoverResult>();
    expectTypeOf<V2026.CallToolResult["resultType"]>().toEqualTypeOf<string>();
    expectTypeOf<
      V2026.ServerNotifications["notifications/subscriptions/acknowledged"]["params"]
    >().not.toBeAny();
    expectTypeOf<V2026.JSONValue>().toEqualTypeOf<VDraft.JSONValue>();
    expect(V2026.LIFECYCLE).toBe("discover");
    expect(VDraft.PROTOCOL_VERSION).toBe("DRAFT-2026-v1");
    expect("initialize" in V2026.clientRequests).toBe(false);
    expect(S2026.JSONValueSchema.safeParse({ a: [1, "x", { b: true }] }).success).toBe(true);
    // schema.ts's JSONValue (SCHEMA_FIXES "JSONValue"): any number and null, but only JSON values.
    expect(S2026.JSONValueSchema.safeParse({ a: [1.5, null] }).success).toBe(true);
    expect(S2026.JSONValueSchema.safeParse({ a: [undefined] }).success).toBe(false);
    expect(S2026.JSONValueSchema.safeParse({ a: () => 1 }).success).toBe(false);
  });
});

describe("the server handler's context", () => {
  it("has status(message) in every version: the server always provides it (a no-op outside a task)", () => {
    const status = expectTypeOf<(message: string) => Promise<void>>();
    status.toEqualTypeOf<V2024.ServerContext["status"]>();
    status.toEqualTypeOf<V202511.ServerContext["status"]>();
    status.toEqualTypeOf<V2026.ServerContext["status"]>();
    status.toEqualTypeOf<VDraft.ServerContext["status"]>();
  });
});

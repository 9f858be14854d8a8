/**
 * Serving a stateless-era request (protocol 2026-07-28 on): no session, the client's version, identity and
 * capabilities in each request's `_meta`, and input asked for by answering InputRequiredResult (multi
 * round-trip requests, with the earlier rounds' answers sealed into `requestState`).
 */

import type { IncomingRequestContext } from "../jsonrpc/connection.js";
import { ErrorCode, type JsonRpcRequest, McpError } from "../jsonrpc/messages.js";
import { type Capabilities, capabilityName, hasCapability } from "../mcp/capabilities.js";
import { checkedParams } from "../mcp/check-errors.js";
import type { AnyHandler, MethodTypes, SessionInfo } from "../mcp/handler-context.js";
import { INPUT_PENDING, type InputRequest, isInputRequired, Round, targetOf } from "../mcp/input-rounds.js";
import { isLogLevel } from "../mcp/logging.js";
import {
  META,
  missingCapability,
  RESULT_TYPE,
  readRequestMeta,
  unsupportedVersion,
} from "../mcp/request-meta.js";
import { bindingOf, boundParams, roundCaller } from "../mcp/round-binding.js";
import { DIRECTORY_READ } from "../mcp/skills.js";
import type { OpenedState, RoundState, SealingKey } from "../mcp/state-sealer.js";
import { reportedStoreError } from "../mcp/store-unavailable.js";
import { entryOf, type ProtocolTables, type RequestEntry, RUNTIME_METHODS } from "../mcp/tables.js";
import { detailOf } from "../util/errors.js";
import { serveListen } from "./listen.js";
import { checkInputResponse, RequestContext, type StatelessRequest } from "./request-context.js";
import type { ServerSession } from "./session.js";
import { callAsTask, callsAsTask, isExtensionMethod, serveExtensionMethod } from "./tasks-extension.js";

type AnySession = ServerSession<MethodTypes, MethodTypes>;

/**
 * A stateless-era request: method first (removed and unknown methods are -32601 whatever their
 * params), then the per-request `_meta` (-32602), the version (-32022), capability gating, params, and
 * the handler; results gain `resultType`, caching hints and the server's identity.
 */
export function serveStateless(
  session: AnySession,
  request: JsonRpcRequest,
  rc: IncomingRequestContext,
  tables: ProtocolTables,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const { method } = request;
  const entry = entryOf(tables.clientRequests, method);
  const tasks = session.server.tasks;
  // The tasks extension's methods are the runtime's own, served only where some tool runs as a task.
  const extension = entry === undefined && tasks !== undefined && isExtensionMethod(method);
  // So are the skills extension's, served where the server has skills.
  const skills =
    entry === undefined && session.server.skills?.serves(method) ? session.server.skills : undefined;
  if (!entry && !extension && !skills)
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  const meta = readRequestMeta(request.params);
  const supported = session.server.statelessVersions;
  if (!supported.includes(meta.protocolVersion)) throw unsupportedVersion(meta.protocolVersion, supported);
  if (meta.logLevel !== undefined && !isLogLevel(meta.logLevel))
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: unknown log level "${meta.logLevel}"`);
  if (skills) return skillsResult(session, method, skills.answer(method, request.params));
  if (!entry) return serveExtensionMethod(tasks!, session, method, request.params, meta, rc);
  if (entry.capability && !hasCapability(session.server.capabilities, entry.capability)) {
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Method not found: ${method} (this server does not offer ${capabilityName(entry.capability)})`,
    );
  }
  const params = checkedParams(entry, request.params) as Record<string, unknown>;
  if (method === "server/discover") return discover(session, tables);
  if (method === "subscriptions/listen") return serveListen(session, params, rc);
  const handler = session.server.handler(entry);
  if (!handler || RUNTIME_METHODS.has(method))
    throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);

  const info: SessionInfo = {
    protocolVersion: meta.protocolVersion,
    era: "stateless",
    clientInfo: meta.clientInfo ?? { name: "unknown", version: "0" },
    clientCapabilities: meta.clientCapabilities,
  };
  const asTask = tasks !== undefined && method === "tools/call" && callsAsTask(tasks, params, meta);
  const run = (round: Round | undefined) => {
    const stateless = { meta, tables, round };
    if (!asTask) return runStateless(session, entry, params, handler, rc, info, stateless);
    return callAsTask(tasks, session, entry, params, handler, rc, info, stateless, (ctx, outcome) =>
      statelessSettled(session, entry, params, rc, ctx, outcome),
    ) as Promise<Record<string, unknown>>;
  };
  if (!entry.inputRequired) return run(undefined);
  // Taken now: the handler may change its params before it asks for input.
  const bound = boundParams(params);
  if (params.requestState === undefined) return run(openRound(session, params, bound));
  return resumeRound(session, entry, params, bound, rc).then(run);
}

/**
 * The round a retry resumes: its requestState opened against this request (method, target, arguments,
 * caller), its inputResponses checked, then the state claimed as used: each is good for one retry.
 */
async function resumeRound(
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  bound: string,
  rc: IncomingRequestContext,
): Promise<Round> {
  const { server } = session;
  const binding = await bindingOf(entry.method, targetOf(params), bound, callerOf(session, rc));
  // A store that cannot answer (keyring, used states): 503 to retry, the state not consumed. The key
  // sealing the next round is read with the keys that open this one: once the state is claimed, nothing
  // asks a store that could fail and leave the state used with no next one for the client.
  let opened: { state: OpenedState; sealing: SealingKey };
  try {
    opened = await server.sealer.openWithSealing(params.requestState, binding);
  } catch (error) {
    storeFailed(session, error);
  }
  const { state, sealing } = opened;
  const round = openRound(session, params, bound, state, sealing);
  let claimed: boolean;
  try {
    claimed = await server.usedStates.claim(state.id, state.expires);
  } catch (error) {
    storeFailed(session, error);
  }
  if (!claimed)
    throw new McpError(
      ErrorCode.InvalidParams,
      "requestState was already used (each is good for one retry): send the request again without it",
    );
  return round;
}

/** A store's failure: a store that cannot answer becomes STORE_UNAVAILABLE (and is reported), else as it is. */
function storeFailed(session: AnySession, error: unknown): never {
  throw reportedStoreError(error, (e) => session.server.reportError(e));
}

/** Who the request's caller is, for binding its rounds (a faulty `stateCaller` is the server's error). */
function callerOf(session: AnySession, rc: IncomingRequestContext): string {
  try {
    return roundCaller(rc.extra, session.sessionId, session.server.stateCaller);
  } catch (error) {
    throw session.server.fault(`cannot bind a requestState to the caller (stateCaller): ${detailOf(error)}`);
  }
}

function runStateless(
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  handler: AnyHandler,
  rc: IncomingRequestContext,
  info: SessionInfo,
  stateless: StatelessRequest,
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const ctx = new RequestContext<MethodTypes, MethodTypes>(session, rc, info, stateless);
  let result: unknown;
  try {
    result = handler(params, ctx);
  } catch (error) {
    return statelessSettled(session, entry, params, rc, ctx, { error });
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => statelessSettled(session, entry, params, rc, ctx, { value }),
      (error) => statelessSettled(session, entry, params, rc, ctx, { error }),
    );
  }
  return statelessSettled(session, entry, params, rc, ctx, { value: result });
}

/** The input state of a retried request: sealed earlier answers plus this retry's inputResponses. */
function openRound(
  session: AnySession,
  params: Record<string, unknown>,
  bound: string,
  state?: RoundState,
  sealing?: SealingKey,
): Round {
  if (state) {
    // The handler sees only its own state (or none), never the runtime's envelope.
    if (state.user === undefined) delete params.requestState;
    else params.requestState = state.user;
  }
  const responses = (params.inputResponses ?? {}) as Record<string, unknown>;
  const stateless = session.server.statelessTables!;
  // Answers to what the last round asked are checked now; others when a handler reads them.
  for (const [key, method] of Object.entries(state?.asked ?? {})) {
    if (key in responses) checkInputResponse(stateless, method, key, responses[key]);
  }
  return new Round({ ...state?.answers, ...responses }, bound, sealing);
}

function statelessSettled(
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  rc: IncomingRequestContext,
  ctx: RequestContext<MethodTypes, MethodTypes>,
  outcome: { value: unknown } | { error: unknown },
): Record<string, unknown> | Promise<Record<string, unknown>> {
  const round = ctx.round;
  // A handler awaiting input it lacks ends in INPUT_PENDING (or in whatever it made of it): the
  // questions it asked are the answer, whatever it returned.
  if (round && round.pending.size > 0) return askForInput(session, entry, params, rc, round, undefined);
  if ("error" in outcome) {
    if (outcome.error === INPUT_PENDING)
      throw session.server.fault(`${entry.method}: input requested outside a request that may ask for it`);
    return session.finish(
      entry,
      decorate(session, entry, session.handlerError(entry, outcome.error, rc)),
      ctx,
    );
  }
  const { value } = outcome;
  if (isInputRequired(value)) {
    if (!round)
      throw session.server.fault(
        `the ${entry.method} handler returned an InputRequiredResult, which ${entry.method} may not`,
      );
    return askForInput(session, entry, params, rc, round, value);
  }
  return session.finish(entry, decorate(session, entry, value as Record<string, unknown>), ctx);
}

/** An InputRequiredResult from the handler's questions (and its own result, if it returned one). */
function askForInput(
  session: AnySession,
  entry: RequestEntry,
  params: Record<string, unknown>,
  rc: IncomingRequestContext,
  round: Round,
  returned: { inputRequests?: Record<string, InputRequest>; requestState?: string } | undefined,
): Promise<Record<string, unknown>> {
  const requests: Record<string, InputRequest> = {
    ...returned?.inputRequests,
    ...Object.fromEntries(round.pending),
  };
  const stateless = session.server.statelessTables!;
  const caps = (params._meta as Record<string, unknown>)[META.clientCapabilities] as Capabilities;
  for (const request of Object.values(requests)) {
    const input = entryOf(stateless.serverRequests, request.method);
    if (input?.delivery !== "input") {
      throw new McpError(
        ErrorCode.InternalError,
        `${request.method} is not an input request a server may send`,
      );
    }
    if (input.capability && !hasCapability(caps, input.capability)) {
      throw missingCapability({ [input.capability.path[0]!]: {} }, capabilityName(input.capability));
    }
  }
  const asked = Object.fromEntries(Object.entries(requests).map(([k, r]) => [k, r.method]));
  const state: RoundState = {
    answers: round.consumed,
    asked,
    ...(returned?.requestState === undefined ? {} : { user: returned.requestState }),
  };
  const { sealer } = session.server;
  return bindingOf(entry.method, targetOf(params), round.params, callerOf(session, rc))
    .then((binding) =>
      sealer.seal(state, binding, round.sealing).catch((error: unknown) => storeFailed(session, error)),
    )
    .then((requestState) => ({
      resultType: RESULT_TYPE.inputRequired,
      ...(Object.keys(requests).length > 0 ? { inputRequests: requests } : {}),
      requestState,
      _meta: session.server.resultMeta,
    }));
}

/** `resultType`, caching hints where the method's result carries them, and the server's identity. */
function decorate(
  session: AnySession,
  entry: RequestEntry,
  result: Record<string, unknown>,
): Record<string, unknown> {
  // FILLED_RESULT_MEMBERS lists these members, which handlers' result types therefore make optional.
  const out: Record<string, unknown> = { ...result };
  out.resultType ??= RESULT_TYPE.complete;
  if (entry.cacheable) {
    const cache = session.server.cacheHints;
    out.ttlMs ??= cache.ttlMs;
    out.cacheScope ??= cache.cacheScope;
  }
  out._meta = { ...session.server.resultMeta, ...(result._meta as Record<string, unknown> | undefined) };
  if (entry.method === "tools/list" && Array.isArray(out.tools)) session.server.toolHeaders.admit(out.tools);
  return out;
}

/** A skills method's answer: complete, with caching hints (skills/list and skills/get are cacheable). */
function skillsResult(session: AnySession, method: string, result: Record<string, unknown>) {
  const cache = method === DIRECTORY_READ ? {} : session.server.cacheHints;
  return { ...result, resultType: RESULT_TYPE.complete, ...cache, _meta: session.server.resultMeta };
}

function discover(session: AnySession, tables: ProtocolTables): Record<string, unknown> {
  const { instructions } = session.server.options;
  return decorate(session, tables.clientRequests["server/discover"]!, {
    supportedVersions: session.server.statelessVersions,
    capabilities: session.server.capabilities,
    ...(instructions ? { instructions } : {}),
  });
}

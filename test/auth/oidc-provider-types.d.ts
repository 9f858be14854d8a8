/**
 * The part of `oidc-provider` (v9, which ships no types) the test authorization server uses. Loose where
 * the library's objects are large; each member is one the fixture calls.
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientView {
    readonly clientId: string;
    readonly applicationType?: string;
    readonly clientAuthMethod?: string;
    grantTypeAllowed(type: string): boolean;
  }

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: "opaque" | "jwt";
    jwt?: { sign?: { alg?: string } };
  }

  /** The Koa context oidc-provider hands to its hooks and events; only `oidc` and `body` are read. */
  export interface KoaContextWithOIDC {
    body?: unknown;
    oidc: {
      readonly params?: Record<string, unknown>;
      readonly client?: ClientView;
      readonly route?: string;
    };
  }

  export interface Interaction {
    readonly uid: string;
    readonly grantId?: string;
    readonly params: Record<string, unknown> & { client_id: string };
    readonly prompt: { name: string; details: Record<string, unknown> };
    readonly session?: { accountId?: string };
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: {
      new (properties: { accountId: string; clientId: string }): Grant;
      find(id: string): Promise<Grant | undefined>;
    };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    // biome-ignore lint/suspicious/noExplicitAny: events pass different arguments each.
    on(event: string, listener: (...args: any[]) => void): this;
  }

  export const errors: {
    InvalidTarget: new (description?: string) => Error;
  };

  export default Provider;
}

/**
 * `ctx.auth` as the generated handler interfaces type it: an AuthInfo when the contract declares `auth`
 * (the runtime serves no one else), `AuthInfo | undefined` when it does not, and what a custom
 * `authenticate` hook returns when the user says so (`Contract<Theirs>`). Checked by tsc on the emitted
 * TypeScript and a handlers file whose `@ts-expect-error` lines must each be errors.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { emitContractSources } from "../../../generator/contract/emit.js";
import { loadContractText } from "../../../generator/contract/load.js";
import { typeErrors } from "../../support/typecheck.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const OUT = `${REPO}test/.tmp/contract-auth-types/`;

const HANDLERS = `
import type { AuthInfo } from "@mcp-codegen/runtime/server";
import type * as Declared from "./declared/server.js";
import type * as Open from "./undeclared/server.js";

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const declaredAuth: Same<Declared.ContractContext["auth"], AuthInfo> = true;
export const openAuth: Same<Open.ContractContext["auth"], AuthInfo | undefined> = true;

export const declared: Declared.Contract = {
  tools: {
    whoami: (_args, ctx) => \`\${ctx.auth.subject} via \${ctx.auth.clientId ?? "?"}: \${ctx.auth.scopes.join(" ")} until \${ctx.auth.expiresAt ?? 0}\`,
    write_note: ({ text }, ctx) => \`\${String(ctx.auth.claims.sub)}: \${text}\`,
  },
  prompts: { summarize: (_args, ctx) => ctx.auth.subject },
  resources: { all: (ctx) => ctx.auth.subject },
  resourceTemplates: { note: ({ name }, ctx) => \`\${name} for \${ctx.auth.subject}\` },
  completions: { prompts: { summarize: { style: (value, { ctx }) => [value, ctx.auth.subject] } } },
};

/** Claims typed by the user: still an AuthInfo. */
type Tenant = AuthInfo & { claims: { tenant: string } };
export const tenants: Declared.Contract<Tenant>["tools"]["whoami"] = (_args, ctx) => ctx.auth.claims.tenant;

// @ts-expect-error a contract that declares auth is served to AuthInfo callers only
export type NotAnAuthInfo = Declared.Contract<{ userId: string }>;

export const open: Open.Contract = {
  tools: {
    // @ts-expect-error auth is undefined where no one is authenticated
    whoami: (_args, ctx) => ctx.auth.subject,
    write_note: ({ text }, ctx) => \`\${ctx.auth?.subject ?? "anyone"}: \${text}\`,
  },
  prompts: { summarize: () => "s" },
  resources: { all: () => "a" },
  resourceTemplates: { note: ({ name }) => name },
};

/** A custom authenticate hook's own value, as its user declares it. */
export const custom: Open.Contract<{ userId: string } | undefined>["tools"]["whoami"] = (_args, ctx) =>
  ctx.auth?.userId ?? "nobody";
`;

it("types ctx.auth by the contract: AuthInfo with auth declared, AuthInfo | undefined without, or the user's own", async () => {
  const text = readFileSync(`${REPO}test/fixtures/scoped-contract/contract.yaml`, "utf8");
  const undeclared = text.replace(/^auth:\n {2}scopes: \[mcp\]\n/m, "");
  expect(undeclared).not.toBe(text);
  rmSync(OUT, { recursive: true, force: true });
  for (const [name, yaml] of [
    ["declared", text],
    ["undeclared", undeclared],
  ] as const) {
    const sources = await emitContractSources(await loadContractText(yaml, "contract.yaml"), {
      protocolVersion: "2026-07-28",
      protocolDir: "../../../../generated/2026-07-28",
    });
    mkdirSync(`${OUT}${name}`, { recursive: true });
    for (const [file, body] of Object.entries(sources)) writeFileSync(`${OUT}${name}/${file}`, body);
  }
  writeFileSync(`${OUT}handlers.ts`, HANDLERS);
  expect(typeErrors(OUT, ["**/*.ts", "../../../generated/2026-07-28/**/*.ts"])).toEqual([]);
}, 120_000);

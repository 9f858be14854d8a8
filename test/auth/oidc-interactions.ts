/**
 * The test authorization server's interaction pages (oidc-provider leaves login and consent to the
 * application): `GET /interaction/<uid>` shows a login form, `POST /interaction/<uid>/login` signs in the
 * account named in the form, `POST /interaction/<uid>/abort` refuses (the client gets `access_denied`).
 * Consent is given automatically: when the provider asks for it, every scope and resource scope it lists
 * as missing is granted (the resource servers' allowed sets already limit what can be asked).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Interaction, Provider } from "oidc-provider";

export const INTERACTION_PREFIX = "/interaction/";
const MAX_FORM_BYTES = 4096;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) throw new Error("form too large");
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function page(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html><meta charset="utf-8"><title>Test authorization server</title>${body}`);
}

function loginForm(interaction: Interaction): string {
  const action = escapeHtml(`${INTERACTION_PREFIX}${interaction.uid}`);
  const client = escapeHtml(String(interaction.params.client_id));
  return `<h1>Sign in</h1><p>Client ${client}</p>
<form method="post" action="${action}/login"><input name="account" value="alice"><button>Sign in</button></form>
<form method="post" action="${action}/abort"><button>Cancel</button></form>`;
}

async function consent(provider: Provider, interaction: Interaction): Promise<Record<string, unknown>> {
  const accountId = interaction.session?.accountId;
  if (accountId === undefined) throw new Error("consent asked before login");
  const grant =
    (interaction.grantId === undefined ? undefined : await provider.Grant.find(interaction.grantId)) ??
    new provider.Grant({ accountId, clientId: interaction.params.client_id });
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(" "));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(details.missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, scopes.join(" "));
  }
  const grantId = await grant.save();
  return { consent: interaction.grantId === undefined ? { grantId } : {} };
}

/** Answers a request under `/interaction/`; anything it cannot place is a 400 page, never a throw. */
export async function handleInteraction(
  provider: Provider,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const [uid, action, ...rest] = path.slice(INTERACTION_PREFIX.length).split("/");
    const interaction = await provider.interactionDetails(req, res);
    if (uid !== interaction.uid || rest.length > 0) return page(res, 404, "<p>Not found</p>");
    if (req.method === "GET" && action === undefined) {
      if (interaction.prompt.name === "login") return page(res, 200, loginForm(interaction));
      if (interaction.prompt.name === "consent") {
        const result = await consent(provider, interaction);
        return await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
      }
      return page(res, 400, `<p>Unknown prompt ${escapeHtml(interaction.prompt.name)}</p>`);
    }
    if (req.method === "POST" && action === "login") {
      const accountId = (await readForm(req)).get("account")?.trim();
      if (!accountId) return page(res, 400, "<p>Name an account</p>");
      return await provider.interactionFinished(
        req,
        res,
        { login: { accountId } },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method === "POST" && action === "abort") {
      return await provider.interactionFinished(
        req,
        res,
        { error: "access_denied", error_description: "The user refused." },
        { mergeWithLastSubmission: false },
      );
    }
    return page(res, 405, "<p>Method not allowed</p>");
  } catch (error) {
    if (!res.headersSent)
      page(res, 400, `<p>${escapeHtml(error instanceof Error ? error.message : "error")}</p>`);
    else res.destroy();
  }
}

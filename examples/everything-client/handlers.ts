/**
 * The everything-client's answers to what a server asks: elicitation forms accepted with their schema
 * defaults (SEP-1034), server log messages shown on stderr.
 */
import type * as T from "../../generated/2025-11-25/index.js";
import type { ClientHandlers } from "../../generated/2025-11-25/index.js";

export const log = (message: string) => void process.stderr.write(`[everything-client] ${message}\n`);

/**
 * SEP-1034: what the user did not fill in takes the schema's `default`. This client runs headless, so
 * its user accepts every form as offered: the answer is exactly the defaults.
 */
export function applySchemaDefaults(
  schema: T.ElicitRequestFormParams["requestedSchema"],
  answers: NonNullable<T.ElicitResult["content"]> = {},
): NonNullable<T.ElicitResult["content"]> {
  const content: NonNullable<T.ElicitResult["content"]> = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const fallback = "default" in property ? property.default : undefined;
    if (fallback !== undefined) content[name] = fallback;
  }
  return { ...content, ...answers };
}

export const handlers: ClientHandlers = {
  elicit: (params) => {
    // URL mode sends the user to a page out of band; a headless client cannot, so it declines.
    if (params.mode === "url") return { action: "decline" };
    const form = params as T.ElicitRequestFormParams;
    return { action: "accept", content: applySchemaDefaults(form.requestedSchema) };
  },
  onLoggingMessage: (params) => log(`server log (${params.level}): ${JSON.stringify(params.data)}`),
};

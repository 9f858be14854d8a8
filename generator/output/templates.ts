/** Handlebars templates for the skeletons of emitted files (`templates/generated/<file>.hbs`). */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import Handlebars from "handlebars";
import { PACKAGE_ROOT } from "../../schema/package.js";
import { dataLiteral } from "../protocol/escape.js";

const TEMPLATE_DIR = join(PACKAGE_ROOT, "templates");
const cache = new Map<string, HandlebarsTemplateDelegate>();
const handlebars = Handlebars.create();
// `{{json x}}`: a literal of the value; any other interpolation is text the emitter escaped for its place.
handlebars.registerHelper("json", (value: unknown) => dataLiteral(value));

/** Renders `templates/generated/<file>.hbs`. Output is code, so nothing is HTML-escaped. */
export function renderTemplate(file: string, data: object, folder = "generated"): string {
  const key = `${folder}/${file}`;
  let template = cache.get(key);
  if (!template) {
    const source = readFileSync(join(TEMPLATE_DIR, `${key}.hbs`), "utf8");
    template = handlebars.compile(source, { noEscape: true, strict: true });
    cache.set(key, template);
  }
  return template(data);
}

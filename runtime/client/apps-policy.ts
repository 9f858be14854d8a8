/**
 * What a web host applies to a view: the Content-Security-Policy the extension prescribes, from the
 * domains the UI resource declares (`_meta.ui.csp`), and the iframe `allow` attribute for the
 * permissions it asks for. Every declared domain must be an origin, since it is pasted into the policy:
 * a space, `;`, `,`, a quote or a `'keyword'` would add sources or directives nobody declared.
 */

import { ErrorCode, isObject, McpError } from "../jsonrpc/messages.js";
import { isCspOrigin, type UI_CSP_FIELDS } from "../mcp/apps.js";

/** `_meta.ui.csp`: the origins a view may reach, by what for. */
export interface UiCsp {
  /** fetch, XHR, WebSocket (`connect-src`). */
  readonly connectDomains?: readonly string[];
  /** scripts, styles, images, fonts, media. */
  readonly resourceDomains?: readonly string[];
  /** nested frames (`frame-src`). */
  readonly frameDomains?: readonly string[];
  /** `<base href>` (`base-uri`). */
  readonly baseUriDomains?: readonly string[];
}

/** `_meta.ui.permissions`: each present key (an empty object) asks for that browser feature. */
export interface UiPermissions {
  readonly camera?: object;
  readonly microphone?: object;
  readonly geolocation?: object;
  readonly clipboardWrite?: object;
}

/** Permission → Permissions Policy feature, in the order the attribute lists them. */
const FEATURES = [
  ["camera", "camera"],
  ["microphone", "microphone"],
  ["geolocation", "geolocation"],
  ["clipboardWrite", "clipboard-write"],
] as const;

/** How a refused CSP field is reported: `field` is its path (`csp.connectDomains[0]`). */
export type CspRefusal = (field: string, why: string) => Error;

const refusal: CspRefusal = (field, why) =>
  new McpError(ErrorCode.InvalidParams, `${field} ${why}`, { field });

/** The declared domains of `field`, each checked (by default -32602 naming the field and the entry). */
export function cspDomains(
  csp: unknown,
  field: (typeof UI_CSP_FIELDS)[number],
  where = "csp",
  refuse: CspRefusal = refusal,
): string[] {
  if (!isObject(csp)) return [];
  const list = csp[field];
  if (list === undefined) return [];
  if (!Array.isArray(list)) throw refuse(`${where}.${field}`, "must be an array of origins");
  return list.map((entry, i) => {
    if (!isCspOrigin(entry))
      throw refuse(
        `${where}.${field}[${i}]`,
        `is not an origin (scheme://host[:port]): ${JSON.stringify(entry)}`,
      );
    return entry;
  });
}

/**
 * The Content-Security-Policy of a view, as the extension prescribes: without declarations
 * `default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline';
 * img-src 'self' data:; media-src 'self' data:; connect-src 'none'; frame-src 'none'; base-uri 'self';
 * object-src 'none'`; `resourceDomains` added to scripts, styles, images, fonts and media,
 * `connectDomains` replacing `connect-src 'none'`, `frameDomains` `frame-src 'none'`, `baseUriDomains`
 * `base-uri 'self'`. An entry that is not an origin is refused (-32602), never pasted.
 */
export function uiPolicy(csp?: UiCsp): string {
  const resource = cspDomains(csp, "resourceDomains");
  const connect = cspDomains(csp, "connectDomains");
  const frame = cspDomains(csp, "frameDomains");
  const base = cspDomains(csp, "baseUriDomains");
  const withResources = (...sources: string[]) => [...sources, ...resource].join(" ");
  const directives = [
    "default-src 'none'",
    `script-src ${withResources("'self'", "'unsafe-inline'")}`,
    `style-src ${withResources("'self'", "'unsafe-inline'")}`,
    `img-src ${withResources("'self'", "data:")}`,
    ...(resource.length > 0 ? [`font-src ${resource.join(" ")}`] : []),
    `media-src ${withResources("'self'", "data:")}`,
    `connect-src ${connect.length > 0 ? connect.join(" ") : "'none'"}`,
    `frame-src ${frame.length > 0 ? frame.join(" ") : "'none'"}`,
    `base-uri ${base.length > 0 ? base.join(" ") : "'self'"}`,
    "object-src 'none'",
  ];
  return directives.join("; ");
}

/** The view iframe's `allow` attribute for the permissions asked (`camera; clipboard-write`), "" for none. */
export function allowAttribute(permissions?: UiPermissions): string {
  if (!isObject(permissions)) return "";
  return FEATURES.filter(([key]) => isObject(permissions[key]))
    .map(([, feature]) => feature)
    .join("; ");
}

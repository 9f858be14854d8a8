/** The two metadata documents an OAuth client reads: RFC 9728 (the resource) and RFC 8414 (the server). */

export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers?: readonly string[];
  readonly scopes_supported?: readonly string[];
  readonly bearer_methods_supported?: readonly string[];
  readonly [field: string]: unknown;
}

export interface AuthorizationServerMetadata {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint: string;
  readonly registration_endpoint?: string;
  readonly scopes_supported?: readonly string[];
  readonly response_types_supported?: readonly string[];
  readonly grant_types_supported?: readonly string[];
  readonly code_challenge_methods_supported?: readonly string[];
  readonly token_endpoint_auth_methods_supported?: readonly string[];
  readonly token_endpoint_auth_signing_alg_values_supported?: readonly string[];
  readonly authorization_response_iss_parameter_supported?: boolean;
  readonly client_id_metadata_document_supported?: boolean;
  readonly [field: string]: unknown;
}

const isStringList = (value: unknown) => Array.isArray(value) && value.every((v) => typeof v === "string");

/** The document if it has the shape RFC 9728 requires, else a message naming the bad field. */
export function checkResourceMetadata(doc: unknown): ProtectedResourceMetadata | string {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return "not a JSON object";
  const d = doc as Record<string, unknown>;
  if (typeof d.resource !== "string") return "`resource` is missing or not a string";
  for (const field of ["authorization_servers", "scopes_supported", "bearer_methods_supported"])
    if (d[field] !== undefined && !isStringList(d[field])) return `\`${field}\` is not a list of strings`;
  return d as ProtectedResourceMetadata;
}

/** The document if it has the shape RFC 8414 requires, else a message naming the bad field. */
export function checkServerMetadata(doc: unknown): AuthorizationServerMetadata | string {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return "not a JSON object";
  const d = doc as Record<string, unknown>;
  if (typeof d.issuer !== "string") return "`issuer` is missing or not a string";
  if (typeof d.token_endpoint !== "string") return "`token_endpoint` is missing or not a string";
  for (const field of ["authorization_endpoint", "registration_endpoint"])
    if (d[field] !== undefined && typeof d[field] !== "string") return `\`${field}\` is not a string`;
  for (const field of [
    "scopes_supported",
    "response_types_supported",
    "grant_types_supported",
    "code_challenge_methods_supported",
    "token_endpoint_auth_methods_supported",
  ])
    if (d[field] !== undefined && !isStringList(d[field])) return `\`${field}\` is not a list of strings`;
  return d as AuthorizationServerMetadata;
}

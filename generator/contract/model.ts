/**
 * The contract model: what a server declares (tools, prompts, resources, resource templates) as plain
 * data, with every schema it uses as a definition of one synthetic JSON Schema document, so the protocol's
 * emitters (types, plain validators) compile users' schemas exactly as they compile the specification's.
 * Built by contract/load.ts from the user's files, or from a live server's lists by `pull`.
 */

import type { SkillsTable } from "@mcp-codegen/runtime/server";
import type { Json } from "../protocol/load.js";
import type { DefinitionModel } from "../protocol/model.js";
import type { ContractUi, ToolUi } from "./ui.js";

export type { ContractUi, ToolUi };

export type JsonObject = { [key: string]: Json };

/**
 * What `mcp-codegen test` reads from an item beyond what goes on the wire: its `test:` hints and the
 * values its schema suggests (JSON Schema `examples` and `default`), tried before sampled ones.
 */
export interface ItemTest {
  /** How long one call may take (the item's own `--timeout`). */
  timeoutMs?: number;
  /** How many inputs to sample (the item's own `--runs`). */
  runs?: number;
  /** Whole inputs the contract gives as examples (the input schema's own `examples`). */
  examples?: JsonObject[];
  /** The whole input's `default`. */
  default?: JsonObject;
  /** Per argument or variable: its `examples`, and its `default`. */
  fields?: Record<string, { examples?: Json[]; default?: Json }>;
}

export interface ContractTool {
  name: string;
  /** Scopes a caller's token needs to use this item, beyond the contract's `auth.scopes` (none when absent). */
  scopes?: string[];
  /** The name's form in type names: `get_user` → `GetUser`. */
  typeName: string;
  /** The `tools/list` entry, self-contained (`$defs` carried inside each schema that needs them). */
  definition: JsonObject;
  /** Definitions of the input and output types (`<TypeName>Input`, `<TypeName>Output`). */
  input: string;
  output: string | null;
  /** Its view (`ui:`): the `ui://` URI and who may call it; also in `definition._meta`. */
  ui?: ToolUi;
  test?: ItemTest;
}

export interface ContractPromptArgument {
  name: string;
  required: boolean;
  enum?: string[];
}

export interface ContractPrompt {
  name: string;
  /** Scopes a caller's token needs to use this item, beyond the contract's `auth.scopes` (none when absent). */
  scopes?: string[];
  typeName: string;
  definition: JsonObject;
  arguments: ContractPromptArgument[];
  /** Definition of the arguments object (`<TypeName>PromptArguments`). */
  args: string;
  test?: ItemTest;
}

export interface ContractResource {
  name: string;
  /** Scopes a caller's token needs to use this item, beyond the contract's `auth.scopes` (none when absent). */
  scopes?: string[];
  definition: JsonObject;
  test?: ItemTest;
}

export interface ContractTemplateVariable {
  name: string;
  type: "string" | "number" | "integer" | "boolean" | "array";
  enum?: (string | number | boolean)[];
}

/** A template part as the runtime takes it (runtime/mcp/uri-template.ts). */
export type TemplatePartModel =
  | string
  | {
      op: "" | "+" | "#" | "." | "/" | ";" | "?" | "&";
      vars: { name: string; explode?: true; prefix?: number }[];
    };

export interface ContractTemplate {
  name: string;
  /** Scopes a caller's token needs to use this item, beyond the contract's `auth.scopes` (none when absent). */
  scopes?: string[];
  typeName: string;
  definition: JsonObject;
  parts: TemplatePartModel[];
  variables: ContractTemplateVariable[];
  /** Definition of the variables object (`<TypeName>TemplateVariables`). */
  vars: string;
  test?: ItemTest;
}

export interface ContractModel {
  /** The contract's file or folder as the user named it, for headers and messages. */
  source: string;
  /** sha256 of the canonical JSON of everything declared: the header names it, as for the protocol. */
  sha256: string;
  tools: ContractTool[];
  prompts: ContractPrompt[];
  resources: ContractResource[];
  resourceTemplates: ContractTemplate[];
  /** The HTML views tools declare (`ui:`), served as `ui://` resources; absent when none. */
  ui?: ContractUi[];
  /**
   * `auth:` as declared: the server is protected, and every request needs `scopes` (possibly none beyond
   * being authenticated). Absent when the contract declares no `auth`.
   */
  auth?: { scopes: string[] };
  /** `skills:` read at generate time: every skill's entry, file and directory, served as they are. */
  skills?: SkillsTable;
  /** Every schema: the user's shared `$defs` and one per tool input/output, prompt and template. */
  definitions: DefinitionModel[];
}

/** MCP clients on any transport: the runtime behind every generated `createClient`. */

export { APP_MIME_TYPE, APPS_EXTENSION, isCspOrigin, UI_CSP_FIELDS, UI_PERMISSIONS } from "../mcp/apps.js";
export {
  SKILLS_EXTENSION,
  SKILLS_LIST,
  type Skill,
  type SkillFile,
  type SkillFrontmatter,
} from "../mcp/skills.js";
export type { SubscriptionFilter } from "../mcp/subscriptions.js";
export type { AppsOption } from "./apps.js";
export { allowAttribute, type UiCsp, type UiPermissions, uiPolicy } from "./apps-policy.js";
export { type AppsReadClient, type ReadUiOptions, readUi, type UiResource } from "./apps-resource.js";
export {
  type AppsCallClient,
  type AppsTool,
  type AppToolCallParams,
  appToolCall,
  modelTools,
  type ToolVisibility,
  toolUi,
  toolVisibility,
} from "./apps-tools.js";
export {
  Client,
  type ClientNotificationContext,
  type ClientOptions,
  type ClientRequestOptions,
  type ListenOptions,
  type ServerDescription,
  type ToolCallParams,
} from "./client.js";
export type { ClientTaskOptions } from "./client-tasks.js";
export {
  type BindOptions,
  bindContract,
  type ContractClient,
  type ContractClientTables,
  InvalidArgumentsError,
  ToolCallError,
} from "./contract.js";
export type { DetailedTask } from "./extension-tasks.js";
export type { HeldSkill } from "./held-skill.js";
export type { DirectoryEntry } from "./skill-directory.js";
export { type SkillRefusal, SkillVerificationError } from "./skill-error.js";
export {
  FrontmatterError,
  type FrontmatterParser,
  frontmatterOf,
  parseFrontmatter,
} from "./skill-frontmatter.js";
export type { SkillFileContent } from "./skill-read.js";
export type { LoadSkillOptions } from "./skills.js";
export type { Subscription, SubscriptionEnd } from "./subscriptions.js";
export type {
  TaskRequest,
  ToolTask,
  ToolTaskInfo,
  ToolTaskStatus,
  ToolTaskWaitOptions,
} from "./tool-task.js";

export { CLIENT_ALIASES, CLIENT_IDS, type ClientId, resolveClientId } from './client-ids.js';
export {
  AUTOMATIC,
  AUTO_FLAG,
  type AutomaticInfo,
  type CaptureClientId,
  type CaptureEvent,
  MARKETPLACE_NAME,
  type MarketplaceSource,
  PLUGIN_ID,
  captureCommand,
  claudeStyleHookGroup,
  kiroCairnAgent,
  kiroCliHookEntry,
  kiroIdePromptHook,
  marketplaceSource,
} from './automatic.js';
export { type AutomaticPaths, automaticPaths } from './automatic-paths.js';
export { CLIENTS, type ClientInfo, type Method, type MethodInfo, type StepContext, clientInfo } from './catalog.js';
export { type EntryInfo, classifyEntry } from './classify-entry.js';
export {
  claudeMcpAddArgs,
  claudeMcpAddCommand,
  claudeMcpRemoveArgs,
  claudePluginArgs,
  codexTokenCommand,
  shellCommand,
} from './commands.js';
export { type PathContext, configPath, configPaths } from './config-paths.js';
export { type EntryDiagnosis, type EntryProblem, type EntryProblemCode, diagnoseEntry, looksLikeCairn } from './diagnose-entry.js';
export {
  BRIDGE_AUTH_ENV,
  BRIDGE_PACKAGE,
  CODEX_TOKEN_ENV,
  DEFAULT_SERVER_NAME,
  INSTALLER_USER_AGENT,
  KEY_PREFIX,
  VERIFICATION_PROMPT,
  mcpUrlFor,
  urlProblem,
} from './constants.js';
export {
  type McpEntry,
  apiKeyHeaders,
  bridgeArgs,
  bridgeEntry,
  codexEntry,
  codexTomlTable,
  headerEntry,
  oauthEntry,
  typedHttpEntry,
  windsurfEntry,
} from './entries.js';

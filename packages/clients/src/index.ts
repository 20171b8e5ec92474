export {
  AUTO_FLAG,
  AUTOMATIC,
  type AutomaticInfo,
  type CaptureClientId,
  type CaptureEvent,
  captureCommand,
  claudeStyleHookGroup,
  kiroCairnAgent,
  kiroCliHookEntry,
  kiroIdePromptHook,
  MARKETPLACE_NAME,
  type MarketplaceSource,
  marketplaceSource,
  PLUGIN_ID,
} from './automatic.js';
export { type AutomaticPaths, automaticPaths } from './automatic-paths.js';
export { CLIENTS, type ClientInfo, clientInfo, type Method, type MethodInfo, type StepContext } from './catalog.js';
export { classifyEntry, type EntryInfo } from './classify-entry.js';
export { CLIENT_ALIASES, CLIENT_IDS, type ClientId, resolveClientId } from './client-ids.js';
export {
  claudeMcpAddArgs,
  claudeMcpAddCommand,
  claudeMcpRemoveArgs,
  claudePluginArgs,
  codexMcpAddCommand,
  codexTokenCommand,
  shellCommand,
} from './commands.js';
export { configPath, configPaths, type PathContext } from './config-paths.js';
export {
  BRIDGE_AUTH_ENV,
  BRIDGE_PACKAGE,
  CODEX_TOKEN_ENV,
  DEFAULT_SERVER_NAME,
  GEMINI_TRUST_STEP,
  INSTALLER_USER_AGENT,
  KEY_PREFIX,
  mcpUrlFor,
  urlProblem,
  VERIFICATION_PROMPT,
} from './constants.js';
export {
  diagnoseEntry,
  type EntryDiagnosis,
  type EntryProblem,
  type EntryProblemCode,
  looksLikeCairn,
} from './diagnose-entry.js';
export {
  apiKeyHeaders,
  bridgeArgs,
  bridgeEntry,
  codexEntry,
  codexEnvEntry,
  codexTomlTable,
  headerEntry,
  type McpEntry,
  oauthEntry,
  typedHttpEntry,
  windsurfEntry,
} from './entries.js';

export {
  AUTO_FLAG,
  AUTOMATIC,
  type AutomaticInfo,
  type CaptureClientId,
  type CaptureEvent,
  captureCommand,
  claudeStyleHookGroup,
  kiroCairnAgent,
  kiroCliHookBlock,
  kiroIdePromptHook,
  MARKETPLACE_NAME,
  type MarketplaceSource,
  marketplaceSource,
  PLUGIN_ID,
} from './automatic.js';
export { type AutomaticPaths, automaticPaths } from './automatic-paths.js';
export { CLIENTS, type ClientInfo, clientInfo, type Method, type MethodInfo, type StepContext } from './catalog.js';
export { type BlockInfo, classifyBlock } from './classify-block.js';
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
  type BlockDiagnosis,
  type BlockProblem,
  type BlockProblemCode,
  diagnoseBlock,
  looksLikeCairn,
} from './diagnose-block.js';
export {
  apiKeyHeaders,
  bridgeArgs,
  bridgeBlock,
  codexBlock,
  codexEnvBlock,
  codexTomlTable,
  headerBlock,
  oauthBlock,
  type ServerBlock,
  typedHttpBlock,
  windsurfBlock,
} from './server-blocks.js';

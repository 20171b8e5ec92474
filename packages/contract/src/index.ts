// The values every Cairn package must agree on, in one place: the server checks them, the installer,
// the portal and the capture hook send them. Change one here and every side changes together.

/** Every API key starts with this (spec: `<KEY_PREFIX>` ending in `tkn_`). */
export const KEY_PREFIX = 'cairn_tkn_';

/** The User-Agent every API-key request to `/mcp` must carry (docs/security.md, "API keys and scopes"). */
export const INSTALLER_USER_AGENT = 'cairn-mcp-installer/1.0';

/** The User-Agent of the capture hook's requests. */
export const CAPTURE_USER_AGENT = 'cairn-capture/1.0';

/** The clients whose hooks capture turns, as the hook is invoked (`cairn-capture <client> <event>`). */
export const CAPTURE_CLIENT_IDS = ['claude-code', 'codex', 'gemini-cli', 'kiro-cli', 'kiro-ide'] as const;
/** One of CAPTURE_CLIENT_IDS. */
export type CaptureClientId = (typeof CAPTURE_CLIENT_IDS)[number];

/** What `POST /api/v1/capture` accepts; the hook batches below these so nothing it sends is refused. */
export const CAPTURE_LIMITS = {
  /** Longest text of one turn, in UTF-16 code units (JavaScript string length). */
  maxTurnChars: 65_536,
  /** Most turns in one request. */
  maxTurnsPerRequest: 50,
  /** Largest request body, in bytes. */
  maxBodyBytes: 1024 * 1024,
} as const;

// Reported client names → product names ("codex-mcp-client 0.61.0" → "Codex 0.61.0").
export { CAIRN_OWN_USER_AGENT_PATTERN, CLIENT_PRODUCT_NAMES, clientProductName } from './client-names.js';
// The shapes of what the server answers and the portal reads (types only).
export type * from './shapes/accounts.js';
export type * from './shapes/knowledge.js';
export type * from './shapes/transfer.js';

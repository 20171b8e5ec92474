import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';

/**
 * The 2026-era revisions the SDK's handler serves: it answers `server/discover` with them and accepts
 * them in every request's `_meta`. The SDK does not export this list, so the discovery test holds it
 * against a live `server/discover`.
 */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = ['2026-07-28'];

/** Every protocol revision Cairn serves, newest first: the 2026 era (server/discover) and the 2025 era (initialize). */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...SUPPORTED_PROTOCOL_VERSIONS,
];

/** The 2025-era revisions `initialize` negotiates. */
export const INITIALIZE_PROTOCOL_VERSIONS: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS;

import { readFileSync, statSync } from 'node:fs';
import type { CapturePaths } from './paths.js';

/** Where to send captured turns, and with which API key. */
export interface CaptureConfig {
  url: string;
  apiKey: string;
}

/** A usable configuration, or why there is none (a reason safe to log). */
export type ConfigResult = { ok: true; config: CaptureConfig } | { ok: false; reason: string };

/** Reads `CAIRN_URL` + `CAIRN_API_KEY`, else `~/.cairn/capture.json`, which must not be readable by others. */
export function loadCaptureConfig(env: NodeJS.ProcessEnv, paths: CapturePaths): ConfigResult {
  if (env.CAIRN_URL && env.CAIRN_API_KEY) return checked(env.CAIRN_URL, env.CAIRN_API_KEY, 'CAIRN_URL');
  let mode: number;
  try {
    mode = statSync(paths.config).mode;
  } catch {
    return { ok: false, reason: `no configuration: set CAIRN_URL and CAIRN_API_KEY or create ${paths.config}` };
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      ok: false,
      reason: `refused ${paths.config}: mode ${(mode & 0o777).toString(8)} lets other users read the key; run chmod 600 on it`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(paths.config, 'utf8'));
  } catch {
    return { ok: false, reason: `${paths.config} is not valid JSON` };
  }
  const { url, apiKey } = (parsed ?? {}) as { url?: unknown; apiKey?: unknown };
  if (typeof url !== 'string' || typeof apiKey !== 'string' || !apiKey) {
    return { ok: false, reason: `${paths.config} needs string fields "url" and "apiKey"` };
  }
  return checked(url, apiKey, `${paths.config} "url"`);
}

function checked(url: string, apiKey: string, source: string): ConfigResult {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) return { ok: false, reason: `${source} is not an http(s) URL` };
  return { ok: true, config: { url, apiKey } };
}

/** The capture endpoint under a Cairn base URL; the MCP address (`…/mcp`) is accepted too. */
export function captureEndpoint(url: string): string {
  return `${url.replace(/\/+$/, '').replace(/\/mcp$/, '')}/api/v1/capture`;
}

// One place that knows how the capture script is bundled, shared by the build and by the tests that
// prove the committed plugin copy is fresh.
import { build } from 'esbuild';

const repo = new URL('../../../', import.meta.url).pathname;

/** Bundles src/bin.ts (with the server's redaction module compiled in) and returns the file's text. */
export async function bundleCapture() {
  const result = await build({
    entryPoints: ['packages/capture/src/bin.ts'],
    // Paths in the output are relative to this, so every machine produces the same bytes.
    absWorkingDir: repo,
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    // Hooks run whatever `node` the user's shell finds; keep the syntax parseable by older ones.
    target: 'node18',
    // Readable on purpose: people audit what a hook does with their API key.
    minify: false,
    legalComments: 'none',
    banner: {
      js: '#!/usr/bin/env node\n// Generated from packages/capture by `npm run build -w @cairn/capture`. Do not edit.',
    },
    // Workspace packages (@cairn/contract) are bundled from their sources, never from a stale build.
    conditions: ['source'],
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

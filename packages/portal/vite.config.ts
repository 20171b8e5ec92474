import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';

/** Writes .br and .gz beside every text asset once at build time, so Cairn serves them without compressing per request. */
function precompress(): Plugin {
  return {
    name: 'cairn-precompress',
    apply: 'build',
    closeBundle() {
      const assets = fileURLToPath(new URL('./dist/assets/', import.meta.url));
      for (const name of readdirSync(assets).filter((n) => /\.(js|css|svg)$/.test(n))) {
        const body = readFileSync(join(assets, name));
        writeFileSync(
          join(assets, `${name}.br`),
          brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        writeFileSync(join(assets, `${name}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  plugins: [react(), precompress()],
  resolve: {
    // Workspace packages (@cairn/contract) are bundled from their sources, never from a stale build.
    conditions: ['source', ...defaultClientConditions],
    // @cairn/clients computes config paths with node:path (posix/win32 join only); the browser gets a tiny stand-in.
    alias: { 'node:path': fileURLToPath(new URL('./src/shims/node-path.ts', import.meta.url)) },
  },
  // No source maps in what Cairn serves: they would publish the portal's source to anyone.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
  // `npm run dev`: the API and /mcp come from a Cairn on :3000.
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/mcp': 'http://127.0.0.1:3000' } },
});

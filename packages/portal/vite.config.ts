import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: {
    // @cairn/clients computes config paths with node:path (posix/win32 join only); the browser gets a tiny stand-in.
    alias: { 'node:path': fileURLToPath(new URL('./src/shims/node-path.ts', import.meta.url)) },
  },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  // `npm run dev`: the API and /mcp come from a Cairn on :3000.
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/mcp': 'http://127.0.0.1:3000' } },
});

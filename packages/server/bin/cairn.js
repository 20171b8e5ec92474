#!/usr/bin/env -S node --no-concurrent-recompilation
// Plain JS on purpose: it must run, and explain itself, before anything is built.
// The flag, which V8 takes only at start-up: optimized code is compiled on the main thread, not by
// background threads whose malloc arenas stay resident (about 8 MB of an idle `cairn serve`'s ~100).
// `npm start`, `cairn` and npm's Windows shims all read it from this line; `node bin/cairn.js` does not.
const [major, minor, patch] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && (minor < 18 || (minor === 18 && patch < 1)))) {
  console.error(
    `Cairn needs Node.js 20.18.1 or newer; this is ${process.versions.node}. Install a current LTS and try again.`,
  );
  process.exit(1);
}
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    console.error(
      'Cairn is not built yet. Run "npm install" (it builds) or "npm run build" in the repository root, then try again.',
    );
    process.exit(1);
  }
  throw error;
}

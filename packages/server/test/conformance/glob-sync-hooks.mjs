/** Node 20 module hook: serves `fs`/`node:fs` ESM imports from a shim that adds Node 22's `globSync`. */
const SHIM_URL = new URL('./fs-with-glob-sync.mjs', import.meta.url).href;

/** Redirects builtin fs imports (except the shim's own) to the shim. */
export async function resolve(specifier, context, nextResolve) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== SHIM_URL) {
    return { url: SHIM_URL, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

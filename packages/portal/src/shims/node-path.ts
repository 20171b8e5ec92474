// The browser stand-in for the two node:path functions @cairn/clients uses (posix.join, win32.join) to build config paths.

function joiner(sep: '/' | '\\') {
  return (...parts: string[]): string => {
    const joined = parts.filter((p) => p.length > 0).join(sep);
    const split = sep === '/' ? /\/+/g : /[\\/]+/g;
    return joined.replace(split, sep);
  };
}

/** POSIX paths: `posix.join`. */
export const posix = { join: joiner('/') };
/** Windows paths: `win32.join`. */
export const win32 = { join: joiner('\\') };

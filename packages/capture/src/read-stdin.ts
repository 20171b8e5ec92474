/** Reads stdin to its end (or until the limit or the signal), never hanging on a terminal or an open pipe. */
export function readStdin(maxBytes: number, signal: AbortSignal): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY || signal.aborted) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      stdin.removeAllListeners();
      signal.removeEventListener('abort', done);
      stdin.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    stdin.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) done();
    });
    stdin.on('end', done);
    stdin.on('error', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

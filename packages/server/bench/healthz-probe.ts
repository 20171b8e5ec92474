import { spawn } from 'node:child_process';

/** One probe's answer: its HTTP status and how long it took (ms). */
export interface ProbeAnswer {
  status: number;
  ms: number;
}

/**
 * Sends the same request every 20 ms for `seconds` from a separate process (so the load generator's
 * own work does not count against the server) and returns each answer's status and latency.
 */
export function probeRequests(
  url: URL,
  seconds: number,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ProbeAnswer[]> {
  const script = `
    const [url, seconds, init] = process.argv.slice(1);
    const until = Date.now() + seconds * 1000;
    const answers = [];
    while (Date.now() < until) {
      const started = performance.now();
      try {
        const response = await fetch(url, JSON.parse(init));
        await response.arrayBuffer();
        answers.push({ status: response.status, ms: performance.now() - started });
      } catch {
        answers.push({ status: 0, ms: performance.now() - started });
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    process.stdout.write(JSON.stringify(answers));`;
  return new Promise((resolve, reject) => {
    const probe = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, url.href, String(seconds), JSON.stringify(init)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    probe.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    probe.on('close', (code) =>
      code === 0
        ? resolve(JSON.parse(out) as ProbeAnswer[])
        : reject(new Error(`the probe of ${url.pathname} exited with ${code}`)),
    );
  });
}

/** /healthz latencies (ms, sorted) of the answers that were OK, one probe every 20 ms for `seconds`, from a separate process. */
export async function probeHealthz(url: URL, seconds: number): Promise<number[]> {
  const answers = await probeRequests(url, seconds);
  return answers
    .filter((a) => a.status >= 200 && a.status < 300)
    .map((a) => a.ms)
    .sort((a, b) => a - b);
}

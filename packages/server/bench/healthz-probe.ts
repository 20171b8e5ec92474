import { spawn } from 'node:child_process';

/** /healthz latencies (ms, sorted), one probe every 20 ms for `seconds`, from a separate process (so the load generator's work does not count against the server). */
export function probeHealthz(url: URL, seconds: number): Promise<number[]> {
  const script = `
    const [url, seconds] = process.argv.slice(1);
    const until = Date.now() + seconds * 1000;
    const times = [];
    while (Date.now() < until) {
      const started = performance.now();
      const response = await fetch(url);
      await response.arrayBuffer();
      if (response.ok) times.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
    process.stdout.write(JSON.stringify(times));`;
  return new Promise((resolve, reject) => {
    const probe = spawn(process.execPath, ['--input-type=module', '-e', script, url.href, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    probe.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    probe.on('close', (code) => (code === 0 ? resolve((JSON.parse(out) as number[]).sort((a, b) => a - b)) : reject(new Error(`the /healthz probe exited with ${code}`))));
  });
}

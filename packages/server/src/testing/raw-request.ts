import { request } from 'node:http';

/**
 * One HTTP request exactly as given: path unnormalised (fetch would resolve `..` and `//`) and any
 * header, Host included (fetch may not set it).
 */
export function rawRequest(
  base: string,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(base);
    const headers = {
      ...init.headers,
      ...(init.body !== undefined && { 'content-length': String(Buffer.byteLength(init.body)) }),
    };
    const req = request({ host: u.hostname, port: u.port, path, method: init.method ?? 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

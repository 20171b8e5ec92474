import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * SSRF guard for every fetch of a URL a client supplied (a Client ID Metadata Document, its jwks_uri):
 * https only, every resolved address vetted, the connection pinned to the vetted address (no DNS
 * rebinding between check and connect), redirects followed by hand with each hop re-checked, a size
 * cap and a timeout.
 */

export interface SafeFetchPolicy {
  /** Accept http:// URLs (tests only). */
  allowHttp: boolean;
  /** Accept loopback addresses (127/8, ::1) (tests only); every other special-use range stays refused. */
  allowLoopback: boolean;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_SAFE_FETCH_POLICY: SafeFetchPolicy = {
  allowHttp: false,
  allowLoopback: false,
  maxBytes: 64 * 1024,
  timeoutMs: 5000,
  maxRedirects: 3,
};

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a hostname to all its addresses; injectable so tests need no DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export class SafeFetchError extends Error {
  override name = 'SafeFetchError';
  /** True when the target could not be reached at all (no DNS answer, no connection, no answer in time), as behind a firewall; false when the guard refused it. */
  readonly unreachable: boolean;
  constructor(message: string, how: 'refused' | 'unreachable' = 'refused') {
    super(message);
    this.unreachable = how === 'unreachable';
  }
}

export interface SafeFetchResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The URL finally fetched (after redirects). */
  url: string;
}

/** What each non-unicast range is, in words a log reader understands. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private) address',
  reserved: 'a reserved or documentation address',
  rfc6145: 'an IPv4-translated address (RFC 6145)',
  rfc6052: 'a NAT64 address (64:ff9b::/96), which can reach any IPv4 target',
  '6to4': 'a 6to4 address (2002::/16), which embeds an IPv4 target',
  teredo: 'a Teredo address (2001::/32), which embeds an IPv4 target',
};

/** IPv4-compatible IPv6 (::a.b.c.d, deprecated): ipaddr.js calls these unicast, but they embed an IPv4 target. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Why an address may not be connected to, or undefined when it may. Only globally routable
 * unicast passes (ipaddr.js's special-range table); IPv4-mapped addresses are judged by the IPv4
 * address they carry, and the transition forms that embed one (6to4, Teredo, NAT64, IPv4-compatible)
 * are refused outright.
 */
export function refusedAddressReason(
  address: string,
  policy: Pick<SafeFetchPolicy, 'allowLoopback'>,
): string | undefined {
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(address);
  const ip =
    parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
      ? (parsed as ipaddr.IPv6).toIPv4Address()
      : parsed;
  const range = ip.range();
  if (range === 'loopback' && policy.allowLoopback) return undefined;
  if (range !== 'unicast') return `${address} is ${RANGE_NAMES[range] ?? `a special-use address (${range})`}`;
  if (ip.kind() === 'ipv6' && ip.match(IPV4_COMPATIBLE))
    return `${address} is an IPv4-compatible address (::/96), which embeds an IPv4 target`;
  return undefined;
}

/** Resolves `hostname` and returns one vetted address; throws if any address it resolves to is refused. */
async function vet(hostname: string, policy: SafeFetchPolicy, resolve: Resolver): Promise<ResolvedAddress> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await resolve(bare).catch((e: unknown) => {
        throw new SafeFetchError(
          `could not resolve ${bare}: ${e instanceof Error ? e.message : String(e)}`,
          'unreachable',
        );
      });
  if (addresses.length === 0) throw new SafeFetchError(`${bare} has no addresses`, 'unreachable');
  for (const a of addresses) {
    const reason = refusedAddressReason(a.address, policy);
    if (reason) throw new SafeFetchError(`refused to fetch from ${bare}: ${reason}`);
  }
  return addresses[0]!;
}

export interface SafeFetchOptions {
  policy?: Partial<SafeFetchPolicy>;
  resolve?: Resolver;
  headers?: Record<string, string>;
}

/** GETs `url` through the guard. Non-2xx answers are returned, not thrown; guard violations throw SafeFetchError. */
export async function safeFetch(url: string | URL, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const policy = { ...DEFAULT_SAFE_FETCH_POLICY, ...options.policy };
  const resolve = options.resolve ?? systemResolver;
  const deadline = Date.now() + policy.timeoutMs;
  let current = new URL(url);
  for (let hop = 0; ; hop++) {
    if (current.protocol !== 'https:' && !(policy.allowHttp && current.protocol === 'http:')) {
      throw new SafeFetchError(`refused to fetch ${current.href}: only https URLs are fetched`);
    }
    if (current.username || current.password) throw new SafeFetchError('refused to fetch a URL with credentials');
    const pinned = await vet(current.hostname, policy, resolve);
    const answer = await requestOnce(current, pinned, policy, deadline, options.headers ?? {});
    if ([301, 302, 303, 307, 308].includes(answer.status) && answer.headers.location) {
      if (hop >= policy.maxRedirects) throw new SafeFetchError(`too many redirects (more than ${policy.maxRedirects})`);
      current = new URL(answer.headers.location, current);
      continue;
    }
    return { ...answer, url: current.href };
  }
}

function requestOnce(
  url: URL,
  pinned: ResolvedAddress,
  policy: SafeFetchPolicy,
  deadline: number,
  headers: Record<string, string>,
): Promise<Omit<SafeFetchResult, 'url'>> {
  const remaining = deadline - Date.now();
  if (remaining <= 0)
    return Promise.reject(new SafeFetchError(`timed out after ${policy.timeoutMs} ms`, 'unreachable'));
  // Connect to the vetted address whatever the hostname resolves to now; TLS still verifies the hostname.
  const lookup = (_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolvePromise, reject) => {
    const req = mod.request(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json', ...headers },
        lookup: lookup as never,
        agent: false,
        timeout: remaining,
      },
      (res) => {
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > policy.maxBytes) {
          res.destroy();
          reject(new SafeFetchError(`response larger than ${policy.maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > policy.maxBytes) {
            res.destroy();
            reject(new SafeFetchError(`response larger than ${policy.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          const flat: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
          resolvePromise({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
        });
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new SafeFetchError(`timed out after ${policy.timeoutMs} ms`, 'unreachable')),
      remaining,
    );
    req.on('timeout', () => req.destroy(new SafeFetchError(`timed out after ${policy.timeoutMs} ms`, 'unreachable')));
    req.on('error', (e) =>
      reject(
        e instanceof SafeFetchError
          ? e
          : new SafeFetchError(`fetch of ${url.href} failed: ${e.message}`, 'unreachable'),
      ),
    );
    req.on('close', () => clearTimeout(timer));
    req.end();
  });
}

/** The guard as a fetch-shaped function (for the provider's `fetchClientMetadataResource`). */
export function safeFetchAsFetch(options: Omit<SafeFetchOptions, 'headers'> = {}) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = typeof input === 'string' || input instanceof URL ? input : input.url;
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const r = await safeFetch(url, { ...options, headers });
    return new Response(r.status === 204 || r.status === 304 ? null : new Uint8Array(r.body), {
      status: r.status,
      headers: r.headers,
    });
  };
}

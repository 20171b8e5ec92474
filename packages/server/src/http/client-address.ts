import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';

/** The address a request came from, as rate limits count it. */
export type ClientAddressOf = (c: Context) => string;

/** Stands for a request that did not come through the Node server (no socket): all such requests share one budget. */
export const UNKNOWN_ADDRESS = 'unknown';

/**
 * The client's address: the socket's peer, unless that peer is one of the operator's trusted
 * proxies; then the rightmost X-Forwarded-For entry that is not a trusted proxy (proxy-addr).
 * With no trusted proxies X-Forwarded-For is never read, so a client cannot choose its address.
 */
export function clientAddressResolver(trustedProxies: readonly string[]): ClientAddressOf {
  const trust = proxyAddr.compile([...trustedProxies]);
  return (c) => {
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const socketAddress = incoming?.socket?.remoteAddress;
    if (!incoming || !socketAddress) return UNKNOWN_ADDRESS;
    const forwarded = trustedProxies.length > 0 ? proxyAddr(incoming, trust) : socketAddress;
    // A trusted proxy that passes on a malformed header must not give each request a fresh budget.
    return canonical(forwarded) ?? canonical(socketAddress) ?? UNKNOWN_ADDRESS;
  };
}

/**
 * The key a per-address limit counts under: IPv4 addresses as they are, IPv6 addresses by their
 * /64 (one subscriber usually holds a whole /64 and could otherwise rotate through it).
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

// Module-level on purpose: keyed weakly by the Request itself, a field of one request of one Cairn, so nothing is shared.
/** The client addresses of requests handed to better-auth, for its CIMD fetch limit, which sees only the request. */
const handedAddresses = new WeakMap<Request, string>();

/** Marks a request for better-auth's handler with the client address it came from (see handedAddress). */
export function withClientAddress(request: Request, address: string): Request {
  handedAddresses.set(request, address);
  return request;
}

/** The address a request handed to better-auth came from, or UNKNOWN_ADDRESS for one not marked by withClientAddress. */
export function handedAddress(request: Request | undefined): string {
  return (request && handedAddresses.get(request)) ?? UNKNOWN_ADDRESS;
}

function canonical(address: string): string | undefined {
  // ipaddr.isValid also takes forms such as "0x7f.1"; only plain IPv4 and IPv6 count as addresses here.
  if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !ipaddr.IPv6.isValid(address)) return undefined;
  return ipaddr.process(address).toString();
}

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Context } from 'hono';
import {
  addressKey,
  clientAddressResolver,
  handedAddress,
  UNKNOWN_ADDRESS,
  withClientAddress,
} from './client-address.js';

/** A Hono context as @hono/node-server makes it: the Node request is `env.incoming`. */
function request(remoteAddress: string, forwardedFor?: string): Context {
  const headers: Record<string, string> = forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor };
  return { env: { incoming: { headers, socket: { remoteAddress } } } } as unknown as Context;
}

describe('clientAddressResolver', () => {
  it('without trusted proxies X-Forwarded-For is ignored: the socket peer is the client', () => {
    const of = clientAddressResolver([]);
    assert.equal(of(request('192.0.2.10', '203.0.113.5')), '192.0.2.10');
    assert.equal(
      of(request('::ffff:192.0.2.10', '203.0.113.5')),
      '192.0.2.10',
      'IPv4-mapped peers count as their IPv4 address',
    );
  });
  it('behind a trusted proxy the rightmost entry it did not add is the client', () => {
    const of = clientAddressResolver(['127.0.0.1', '10.0.0.0/8']);
    assert.equal(of(request('127.0.0.1', '203.0.113.5')), '203.0.113.5');
    assert.equal(
      of(request('127.0.0.1', '198.51.100.1, 203.0.113.5, 10.1.2.3')),
      '203.0.113.5',
      'forged entries to the left do not matter',
    );
    assert.equal(of(request('192.0.2.77', '203.0.113.5')), '192.0.2.77', 'an untrusted peer cannot forward for anyone');
    assert.equal(of(request('127.0.0.1')), '127.0.0.1');
  });
  it('a malformed forwarded value falls back to the proxy, not to a fresh string each time', () => {
    const of = clientAddressResolver(['loopback']);
    assert.equal(of(request('127.0.0.1', 'not-an-address')), '127.0.0.1');
    assert.equal(of(request('127.0.0.1', '0x7f.1')), '127.0.0.1');
  });
  it('a request without a socket (not through the Node server) shares one budget', () => {
    assert.equal(clientAddressResolver([])({ env: undefined } as unknown as Context), UNKNOWN_ADDRESS);
  });
});

describe('addressKey', () => {
  it('counts IPv4 addresses one by one and IPv6 addresses by their /64', () => {
    assert.equal(addressKey('203.0.113.5'), '203.0.113.5');
    assert.equal(addressKey('2001:db8:1:2::7'), addressKey('2001:db8:1:2:ffff:eeee:dddd:cccc'));
    assert.notEqual(addressKey('2001:db8:1:2::7'), addressKey('2001:db8:1:3::7'));
    assert.equal(addressKey('::ffff:203.0.113.5'), '203.0.113.5');
  });
});

describe('handedAddress', () => {
  it('is the address a request was handed on with; any other request, or none, shares the unknown budget', () => {
    const handed = withClientAddress(new Request('http://cairn.test/api/auth/oauth2/authorize'), '203.0.113.5');
    assert.equal(handedAddress(handed), '203.0.113.5');
    assert.equal(handedAddress(new Request(handed)), UNKNOWN_ADDRESS, 'a copy was not handed on');
    assert.equal(handedAddress(undefined), UNKNOWN_ADDRESS);
  });
});

// What the MCP e2e files that act as a tenant's owner, member and outsider share: the Cairn, the tenant and a client for each.
import { after, before } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { connectMcpClient } from '../../src/testing/mcp-client.js';
import { createTenant, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

/** Set by useTenantCairn's before hook; importers see them from then on (module bindings are live). */
export let server: TestCairn;
export let tenant: TestTenant;
export let owner: Client;
export let member: Client;
export let outsider: Client;

/**
 * Called once at a file's top level: starts a Cairn on the runner's backend with a fresh tenant and
 * connects an MCP client for its owner, member and outsider before the tests; closes them all after.
 * A file's own set-up goes in `then`: node 20 does not wait for one top-level before hook to end before the next.
 */
export function useTenantCairn(then?: () => Promise<void>): void {
  runFileOnEachBackend();
  before(async () => {
    server = await startTestCairn();
    tenant = await createTenant(server.cairn);
    owner = await connectMcpClient(server.mcpUrl, tenant.owner.key);
    member = await connectMcpClient(server.mcpUrl, tenant.member.key);
    outsider = await connectMcpClient(server.mcpUrl, tenant.outsider.key);
    await then?.();
  });
  after(async () => {
    await Promise.all([owner, member, outsider].map((c) => c?.close()));
    await server?.close();
  });
}

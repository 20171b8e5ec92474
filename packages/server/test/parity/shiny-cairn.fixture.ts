// For backend-parity.test.ts: a helper under a name no list knows, which starts a Cairn two calls down.
import { startTenantCairn } from '../../src/testing/tenants.js';

/** A Cairn with a tenant, as a new helper might start one. */
export async function startShinyCairn() {
  const { server } = await startTenantCairn();
  return server;
}

import { INSTALLER_USER_AGENT } from '../../src/auth/mcp-auth.js';
import { createTenant } from '../../src/testing/tenants.js';
import { startTestCairn } from '../../src/testing/test-cairn.js';

/** A started MCP server plus the headers a client must send to reach it. */
export interface StartedMcpServer {
  /** Origin, e.g. `http://127.0.0.1:1234`. */
  origin: string;
  /** Path of the MCP endpoint, e.g. `/mcp`. */
  mcpPath: string;
  /** Headers every request must carry (bearer token, installer user agent). */
  headers: Record<string, string>;
  close(): Promise<void>;
}

/** The real Cairn, with a user whose API key the header proxy injects. */
export async function startCairnUnderTest(): Promise<StartedMcpServer> {
  const server = await startTestCairn();
  const tenant = await createTenant(server.cairn);
  const { origin } = new URL(server.baseUrl);
  return {
    origin,
    mcpPath: '/mcp',
    headers: { Authorization: `Bearer ${tenant.member.key}`, 'User-Agent': INSTALLER_USER_AGENT },
    close: () => server.close(),
  };
}

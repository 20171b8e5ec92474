import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { INSTALLER_USER_AGENT } from '../auth/mcp-auth.js';

/** A connected MCP SDK client authenticating the way the contract prescribes. */
export async function connectMcpClient(mcpUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'cairn-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, 'User-Agent': INSTALLER_USER_AGENT } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its structured content, failing loudly on a tool error. */
export async function callTool<T = Record<string, any>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`tool ${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

/** Calls a tool that is expected to fail and returns its error text. */
export async function callToolError(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError)
    throw new Error(`tool ${name} unexpectedly succeeded: ${JSON.stringify(result.structuredContent)}`);
  return (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
}

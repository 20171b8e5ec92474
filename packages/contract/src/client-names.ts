// What a client calls itself (MCP `clientInfo.name`, or the product part of its User-Agent) → the
// name a person knows it by. One table: the portal's labels and the server's "last used by" read it.

/** Known clients' reported names (exact, case-insensitive) → product names. */
export const CLIENT_PRODUCT_NAMES: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  'claude-ai': 'Claude Desktop',
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  'cursor-vscode': 'Cursor',
  'visual studio code': 'VS Code',
  'visual studio code - insiders': 'VS Code Insiders',
  vscode: 'VS Code',
  'github-copilot': 'GitHub Copilot',
  'codex-mcp-client': 'Codex',
  codex_cli_rs: 'Codex',
  'gemini-cli-mcp-client': 'Gemini CLI',
  // `gemini mcp list` connects under this name to check the server.
  'mcp-test-client': 'Gemini CLI (mcp list)',
  'kiro-cli': 'Kiro CLI',
  kiro: 'Kiro',
  windsurf: 'Windsurf',
  'windsurf-client': 'Windsurf',
  'mcp-remote': 'mcp-remote',
  'mcp-remote-fallback-test': 'mcp-remote',
  'mcp-inspector': 'MCP Inspector',
  'inspector-client': 'MCP Inspector',
};

/** Cairn's own callers (the installer's and the capture hook's User-Agents): never the agent a key was last used by. */
export const CAIRN_OWN_USER_AGENT_PATTERN = /^cairn-(mcp-installer|capture)\/\d+(\.\d+)*(\s|$)/;

/**
 * A reported client ("codex-mcp-client 0.61.0", "claude-code/2.0.1 (cli)") as a person reads it
 * ("Codex 0.61.0", "Claude Code 2.0.1"); an unknown name is kept as reported, and so is the version.
 */
export function clientProductName(reported: string): string {
  const text = reported.trim();
  const v = /[/\s]v?(\d[^\s]*)/.exec(text);
  const name = (v ? text.slice(0, v.index) : text.replace(/\s*\(.*$/, '')).trim();
  const product = CLIENT_PRODUCT_NAMES[name.toLowerCase()];
  if (!product) return reported;
  return v ? `${product} ${v[1]}` : product;
}

import { CLIENT_IDS } from '@cairn/clients';

/** The installer's own version (printed by --version). */
export const INSTALLER_VERSION = '1.0.0';

/** The --help text. */
export const HELP = `cairn-mcp-installer ${INSTALLER_VERSION} — connects an AI client to Cairn's MCP server

Usage (your Cairn serves this installer at <cairn url>/install/cairn-mcp-installer.tgz; where the
operator has published it to npm, npx cairn-mcp-installer@latest runs the same):
  npx -y <cairn url>/install/cairn-mcp-installer.tgz --client <id> --url <cairn url> [options]
  npx -y <cairn url>/install/cairn-mcp-installer.tgz --client <id> --uninstall [--server-name <name>]
  npx -y <cairn url>/install/cairn-mcp-installer.tgz doctor [--fix] [--client <id>]
  npx -y <cairn url>/install/cairn-mcp-installer.tgz --client claude-desktop --bundle --url <cairn url> [--out <path>]

Clients: ${CLIENT_IDS.join(', ')} (kiro-cli and kiro-ide are aliases of kiro)

Options:
  --client <id>          the client to set up (required)
  --url <url>            your Cairn address with its scheme, https://… (…/mcp is added when missing)
  --api-key <key>        the API key (cairn_tkn_…); or set CAIRN_API_KEY; otherwise asked for, hidden
  --setup-code <code>    a one-time code from the portal, traded for a fresh key (keeps keys out of shell history)
  --oauth                url-only entry: the client signs in in the browser (not for kiro)
  --auto                 automatic mode for claude-code, codex and gemini-cli: skills and hooks, so the
                         agent uses Cairn unasked (kiro always gets it; other clients: on-demand only)
  --marketplace <src>    (claude-code --auto) the Cairn plugin marketplace: git URL, owner/repo or folder;
                         without it, the installer's own copy of the plugin (~/.cairn/claude-marketplace)
  --auto-update          (claude-code) turn on the marketplace's auto-update, keeping its source
  --server-name <name>   the entry's name (default: cairn)
  --bundle               (claude-desktop) write the Claude Desktop extension, cairn-claude-desktop.mcpb,
                         into this folder instead of editing the config; open it to install
  --out <path>           (--bundle) where to write it: a file path or a folder
  --uninstall            remove the entry, and what automatic mode added (listed in ~/.cairn/installed.json)
  --dry-run              show the change as a diff; write nothing
  --no-check             do not connect to Cairn after writing
  --fix                  (doctor) repair what can be repaired safely
  --yes                  do not ask before writing
  --help, --version

After writing, the installer connects as the client will and lists your datapacks; if that fails
the entry stays written, the cause is named, and the exit code is 3. If automatic mode cannot be
finished, the entry stays, the command that finishes it is printed, and the exit code is 4.
doctor checks every client's config on this machine: one line per problem, exit 1 if any.
Re-running updates the entry in place; a file that does not parse is left untouched.`;

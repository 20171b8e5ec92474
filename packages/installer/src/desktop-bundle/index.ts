// What the server takes from the installer: the Claude Desktop extension it serves at /install/cairn-claude-desktop.mcpb.
export { buildDesktopBundle, DESKTOP_BUNDLE_FILE } from './build-bundle.js';

/** Where every Cairn serves its Claude Desktop extension, built for its own address (server: desktop-bundle-route.ts). */
export const DESKTOP_EXTENSION_PATH = '/install/cairn-claude-desktop.mcpb';

/** Claude Desktop's one-step alternative to the bridge entry: a downloadable extension that asks for the key itself. */
export function DesktopExtension() {
  return (
    <div className="desktop-extension">
      <h3>In one step: the Claude Desktop extension</h3>
      <p>
        Open the downloaded file (double-click it, or Claude Desktop &gt; Settings &gt; Extensions &gt; Install
        Extension…) and paste an API key when Claude Desktop asks. It runs the same bridge as the entry below; the file
        holds no key.
      </p>
      <a className="button secondary" href={DESKTOP_EXTENSION_PATH} download>
        Download extension (.mcpb)
      </a>
      <p className="hint">To remove it: Claude Desktop &gt; Settings &gt; Extensions.</p>
    </div>
  );
}

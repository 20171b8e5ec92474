/** The oldest Node.js the installer runs on (README, "Set-up"). */
export const MINIMUM_NODE = '20.18.1';

/** A message naming the found and needed versions when `found` is older than MINIMUM_NODE; undefined when it is new enough. */
export function nodeTooOld(found: string): string | undefined {
  const parse = (v: string) =>
    v
      .replace(/^v/, '')
      .split('.')
      .map((n) => Number.parseInt(n, 10) || 0);
  const [a = 0, b = 0, c = 0] = parse(found);
  const [x = 0, y = 0, z = 0] = parse(MINIMUM_NODE);
  const older = a !== x ? a < x : b !== y ? b < y : c < z;
  if (!older) return undefined;
  return `cairn-mcp-installer needs Node.js ${MINIMUM_NODE} or newer; this is Node.js ${found.replace(/^v/, '')}. Install a current Node.js LTS (https://nodejs.org) and run the command again.`;
}

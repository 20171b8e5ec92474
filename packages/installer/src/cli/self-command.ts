import { urlProblem } from '@cairn/clients';

/** Stands for the address of the user's Cairn in a printed command when the installer does not know it. */
export const YOUR_CAIRN = '<your Cairn address>';

/**
 * The command that runs this installer again with `args`: the copy the user's Cairn serves at
 * /install when its address is known (it always works), else the package name.
 */
export function installerCommand(args: string, cairnUrl?: string): string {
  const base = cairnUrl === YOUR_CAIRN ? YOUR_CAIRN : cairnBase(cairnUrl);
  return base ? `npx -y ${base}/install/cairn-mcp-installer.tgz ${args}` : `npx cairn-mcp-installer ${args}`;
}

/** A Cairn's base address from its base or MCP URL, or undefined when it is not one a client could use. */
export function cairnBase(url?: string): string | undefined {
  const base = url
    ?.trim()
    .replace(/\/+$/, '')
    .replace(/\/mcp$/, '');
  return base && !urlProblem(base) ? base : undefined;
}

import { urlProblem } from '@cairn/clients';

/** Stands for the address of the user's Cairn in a printed command when the installer does not know it. */
export const YOUR_CAIRN = '<your Cairn address>';

/**
 * The command that runs this installer again with `args`: the copy the user's Cairn serves at
 * /install (it always works; the package is not on the npm registry everywhere), with
 * <your Cairn address> to fill in when the address is not known.
 */
export function installerCommand(args: string, cairnUrl?: string): string {
  return `npx -y ${cairnBase(cairnUrl) ?? YOUR_CAIRN}/install/cairn-mcp-installer.tgz ${args}`;
}

/** A Cairn's base address from its base or MCP URL, or undefined when it is not one a client could use. */
export function cairnBase(url?: string): string | undefined {
  const base = url
    ?.trim()
    .replace(/\/+$/, '')
    .replace(/\/mcp$/, '');
  return base && !urlProblem(base) ? base : undefined;
}

import { urlProblem } from '@cairn/clients';

/**
 * The command that runs this installer again with `args`: the copy the user's Cairn serves at
 * /install when its address is known (it always works), else the package name.
 */
export function installerCommand(args: string, cairnUrl?: string): string {
  const base = cairnUrl
    ?.trim()
    .replace(/\/+$/, '')
    .replace(/\/mcp$/, '');
  return base && !urlProblem(base) ? `npx -y ${base}/install/cairn-mcp-installer.tgz ${args}` : `npx cairn-mcp-installer ${args}`;
}

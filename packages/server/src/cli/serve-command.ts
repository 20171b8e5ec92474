import type { CairnConfig } from '../config/load-config.js';
import { openCairn } from '../runtime/open-cairn.js';
import { describeStore } from '../runtime/open-store.js';
import { listen, stopListening } from '../runtime/serve.js';

/** `cairn serve`: runs until SIGINT/SIGTERM, then drains and closes everything. */
export async function runServe(config: CairnConfig): Promise<number> {
  const cairn = await openCairn(config);
  // Safety net: background work that failed only because the database is unreachable must not end the
  // instance (it is logged once per outage); any other unhandled rejection still ends it, as by default.
  process.on('unhandledRejection', (reason) => {
    if (!cairn.store.health.noteError(reason)) throw reason;
  });
  const { server } = await listen(cairn);
  const users = await cairn.store.countUsers();
  const lines = [
    'Cairn is running.',
    `  Portal:   ${config.baseUrl}/`,
    `  MCP URL:  ${config.baseUrl}/mcp`,
    `  Storage:  ${describeStore(config)}`,
  ];
  if (users === 0) {
    lines.push(
      '',
      `No users yet. Open the portal at ${config.baseUrl}/ and sign up: the first account owns a new organization.`,
      'Or create it from the command line (the password is read from standard input):',
      '  npx cairn users create --email you@example.com --name "Your Name" --password-stdin',
      'Then make an API key for your AI clients:',
      '  npx cairn keys create --user you@example.com --name "my laptop"',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  cairn.log.info('shutting down');
  await stopListening(server);
  await cairn.close();
  return 0;
}

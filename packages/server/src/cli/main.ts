import { parseArgs } from 'node:util';
import { type CairnConfig, ConfigError, loadConfig } from '../config/load-config.js';
import { CairnError } from '../errors/cairn-error.js';
import { openCairn } from '../runtime/open-cairn.js';
import { auditList } from './audit-command.js';
import {
  keysCreate,
  keysList,
  keysRevoke,
  type Options,
  setupCodesCreate,
  status,
  teamsAddMember,
  teamsCreate,
  usersCreate,
  usersResetPassword,
} from './commands.js';
import { explainStartupError } from './explain-error.js';
import { rulesImport } from './rules-commands.js';
import { runServe } from './serve-command.js';
import { exportCommand, importCommand } from './transfer-commands.js';

const USAGE = `Usage: cairn <command>

  serve                                         start Cairn (HOST, PORT, CAIRN_DATA_DIR or DATABASE_URL)
  status                                        the database, users, entries, and the embeddings backfill
  users create --email E [--name N] [--org NAME [--join]] --password-stdin
                                                --org NAME creates that organization (the user owns it);
                                                --org NAME --join adds the user to the existing one
  users reset-password --email E --password-stdin
                                                replaces the password and ends the user's sessions
  keys create --user E --name N [--scope read|read-write] [--expires 30d|90d|YYYY-MM-DD|never]
                                                prints the new API key (shown only once); default read-write, no expiry
  keys list --user E
  keys revoke <key id>
  setup-codes create --user E                   prints a one-time code for the installer (--setup-code)
  teams create --org NAME --name N              prints the new team id
  teams add-member --team ID --user E
  audit [--org NAME] [--user E] [--kind K] [--since 7d|DATE] [--until DATE] [--limit N] [--cursor C] [--json]
                                                the audit trail, newest first (kind: entry.updated, or a family: entry)
  export [--user E | --org NAME] [--datapack ID] --out FILE.jsonl [--format jsonl|markdown]
                                                every datapack (or what the user can read, or the
                                                organization's), every entry with its whole history;
                                                markdown: a folder, one file per entry (current version)
  import FILE.jsonl|FOLDER [--dry-run]          brings an export in; the same file twice changes nothing
  rules import DIR --datapack ID --user E [--project NAME] [--dry-run]
                                                a repository's rule files (Cursor, Claude Code, AGENTS.md, Copilot,
                                                Kiro, Windsurf, Devin, Continue, Cline) as rules, saved as user E
`;

const COMMANDS: Record<
  string,
  (cairn: Awaited<ReturnType<typeof openCairn>>, o: Options, args: string[]) => Promise<void>
> = {
  status: status,
  'users create': usersCreate,
  'users reset-password': usersResetPassword,
  'keys create': keysCreate,
  'keys list': keysList,
  'keys revoke': keysRevoke,
  'setup-codes create': setupCodesCreate,
  'teams create': teamsCreate,
  'teams add-member': teamsAddMember,
  audit: auditList,
  export: exportCommand,
  import: importCommand,
  'rules import': rulesImport,
};

let config: CairnConfig | undefined;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      org: { type: 'string' },
      user: { type: 'string' },
      team: { type: 'string' },
      scope: { type: 'string' },
      expires: { type: 'string' },
      kind: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
      join: { type: 'boolean' },
      out: { type: 'string' },
      format: { type: 'string' },
      datapack: { type: 'string' },
      project: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, verb, ...rest] = positionals;
  if (values.help || !group) {
    process.stdout.write(USAGE);
    return group || values.help ? 0 : 2;
  }
  config = loadConfig(process.env);
  if (group === 'serve') return runServe(config);
  // `import FILE` takes a path where other commands take a verb.
  const takesPath = group === 'import';
  const command = COMMANDS[verb === undefined || takesPath ? group : `${group} ${verb}`];
  if (!command) {
    process.stderr.write(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
    return 2;
  }
  const cairn = await openCairn(
    { ...config, logLevel: config.logLevel === 'info' ? 'warn' : config.logLevel },
    { background: false, patient: true },
  );
  try {
    await command(cairn, values, takesPath ? positionals.slice(1) : rest);
    return 0;
  } finally {
    await cairn.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const explained = explainStartupError(error, config);
    if (explained) process.stderr.write(`cairn: ${explained}\n`);
    else if (error instanceof CairnError || error instanceof ConfigError)
      process.stderr.write(`cairn: ${error.message}\n`);
    else if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      process.stderr.write(`cairn: ${(error as Error).message}\n\n${USAGE}`);
    else process.stderr.write(`cairn: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Outcome of one conformance server-suite run. */
export interface ConformanceResult {
  /** Scenarios whose checks have no FAILURE and no WARNING. */
  passed: string[];
  /** Scenarios with a FAILURE or WARNING check, or that crashed (the CLI's own baseline semantics), with those checks' messages. */
  failed: { name: string; detail: string }[];
  /** The CLI's stdout and stderr, ANSI colours stripped. */
  raw: string;
}

interface Check {
  id: string;
  name: string;
  /** SUCCESS, FAILURE, WARNING or INFO. */
  status: string;
  description?: string;
  errorMessage?: string | null;
  details?: { message?: string };
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const SUMMARY_LINE = /^([✓✗]) (\S+): \d+ passed, \d+ failed$/;
const RESULT_DIR = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/;

/** Absolute path of the `conformance` CLI, a test-only tool in test-clients/ (npm test installs it); throws if it is not installed. */
export function resolveConformanceCli(): string {
  const require = createRequire(new URL('../../../../test-clients/package.json', import.meta.url));
  const pkgJson = require.resolve('@modelcontextprotocol/conformance/package.json');
  const { bin } = JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { bin: { conformance: string } };
  return path.join(path.dirname(pkgJson), bin.conformance);
}

/** Node flags that let the Node-22-only CLI (it imports `globSync` from `fs`) load on Node 20; empty where `fs.globSync` exists. */
export function nodeCompatFlags(): string[] {
  if (typeof (fs as { globSync?: unknown }).globSync === 'function') return [];
  const hooks = pathToFileURL(path.join(import.meta.dirname, 'glob-sync-hooks.mjs')).href;
  const register = `import{register}from'node:module';register(${JSON.stringify(hooks)});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(register)}`];
}

/** Why the conformance CLI cannot run here (not installed, or `list` fails even with the Node 20 hook), or undefined if it can. */
export function conformanceCliUnavailableReason(): string | undefined {
  let cli: string;
  try {
    cli = resolveConformanceCli();
  } catch (error) {
    return `@modelcontextprotocol/conformance is not installed (${(error as Error).message})`;
  }
  const probe = spawnSync(process.execPath, [...nodeCompatFlags(), cli, 'list', '--server'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (probe.status === 0) return undefined;
  return `\`conformance list\` failed (exit ${probe.status}): ${(probe.error?.message ?? probe.stderr).slice(0, 500)}`;
}

async function readChecks(outputDir: string): Promise<Map<string, Check[]>> {
  const byScenario = new Map<string, Check[]>();
  for (const dir of await readdir(outputDir)) {
    const scenario = RESULT_DIR.exec(dir)?.[1];
    if (!scenario) continue;
    // The CLI creates the directory before running the scenario but writes checks.json only if it did not throw.
    const text = await readFile(path.join(outputDir, dir, 'checks.json'), 'utf8').catch(() => undefined);
    if (text !== undefined) byScenario.set(scenario, JSON.parse(text) as Check[]);
  }
  return byScenario;
}

// A WARNING-only scenario was not really exercised (e.g. it needs a session ID), so it counts as not passing, as in the CLI's --expected-failures mode.
function isNotPassing(check: Check): boolean {
  return check.status === 'FAILURE' || check.status === 'WARNING';
}

function failureDetail(checks: Check[] | undefined): string {
  if (!checks) return 'scenario crashed before writing checks.json; see raw output';
  return checks
    .filter(isNotPassing)
    .map((c) => `${c.status} ${c.name}: ${c.errorMessage ?? c.details?.message ?? c.description}`)
    .join('; ');
}

/** Runs the active server suite of @modelcontextprotocol/conformance against `mcpUrl` (killed after `timeoutMs`) and parses its results. */
export async function runConformanceServerSuite(options: {
  mcpUrl: string;
  timeoutMs?: number;
}): Promise<ConformanceResult> {
  const outputDir = await mkdtemp(path.join(os.tmpdir(), 'cairn-conformance-'));
  try {
    const args = [
      ...nodeCompatFlags(),
      resolveConformanceCli(),
      'server',
      '--url',
      options.mcpUrl,
      '--output-dir',
      outputDir,
    ];
    const { code, signal, output } = await new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      output: string;
    }>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: outputDir, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, output });
      });
    });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the CLI's ANSI colour escapes (ESC [ … m)
    const raw = output.replace(/\x1b\[[0-9;]*m/g, '');

    const summary = new Map<string, boolean>();
    for (const line of raw.split('\n')) {
      const match = SUMMARY_LINE.exec(line.trim());
      if (match?.[2]) summary.set(match[2], match[1] === '✓');
    }
    // Exit 0/1 with a summary is a completed run; anything else (timeout kill, crash, bad flags) is not a result.
    if (signal || (code !== 0 && code !== 1) || summary.size === 0) {
      throw new Error(`conformance CLI did not complete (exit ${code}, signal ${signal}):\n${raw.slice(-4000)}`);
    }

    const checks = await readChecks(outputDir);
    const result: ConformanceResult = { passed: [], failed: [], raw };
    for (const [name, ok] of summary) {
      const scenarioChecks = checks.get(name);
      if (!ok || !scenarioChecks || scenarioChecks.some(isNotPassing)) {
        result.failed.push({ name, detail: failureDetail(scenarioChecks) });
      } else result.passed.push(name);
    }
    return result;
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

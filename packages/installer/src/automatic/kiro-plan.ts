import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  type AutomaticPaths,
  captureCommand,
  kiroCairnAgent,
  kiroCliHookBlock,
  kiroIdePromptHook,
} from '@cairn/clients';
import { ConfigParseError } from '../files/config-error.js';
import { parseJsonConfig } from '../files/json-edit.js';
import { readConfig } from '../files/write-config.js';
import { type AutomaticPlan, captureConfigFile, captureScriptFile, pluginFile, skillFiles } from './plan.js';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * Kiro (docs/plugin.md, "Kiro"): steering, skills, the IDE's promptSubmit hook, and the CLI hooks —
 * added to every global agent config already there, and in a `cairn` agent of its own, since the
 * built-in default agent has no file to hold hooks.
 */
export function kiroPlan(paths: AutomaticPaths, baseUrl: string, apiKey: string): AutomaticPlan {
  const script = paths.captureScript;
  const prompt = captureCommand(script, 'kiro-cli', 'prompt');
  const stop = captureCommand(script, 'kiro-cli', 'stop');
  const plan: AutomaticPlan = {
    files: [
      captureConfigFile(paths, baseUrl, apiKey),
      captureScriptFile(paths),
      { path: paths.kiroSteering, content: pluginFile('steering/cairn.md'), mode: 0o644 },
      ...skillFiles(paths.kiroSkills),
      {
        path: paths.kiroIdePromptHook,
        content: json(kiroIdePromptHook(captureCommand(script, 'kiro-ide', 'prompt'))),
        mode: 0o644,
      },
      { path: paths.kiroCairnAgent, content: json(kiroCairnAgent(paths.kiroHome, prompt, stop)), mode: 0o644 },
    ],
    values: [],
    notes: [
      'Kiro CLI: the "cairn" agent carries the steering, skills and capture hooks: kiro-cli chat --agent cairn (or /agent swap cairn in a session).',
    ],
    skipped: [],
  };
  const agents = existsSync(paths.kiroAgents)
    ? readdirSync(paths.kiroAgents)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];
  for (const file of agents.map((f) => join(paths.kiroAgents, f)).filter((f) => f !== paths.kiroCairnAgent)) {
    try {
      parseJsonConfig(file, readConfig(file) ?? '', false);
    } catch (error) {
      if (!(error instanceof ConfigParseError)) throw error;
      plan.skipped.push(
        `${file}: does not parse (${error.line}:${error.column}: ${error.problem}), so no capture hooks were added to that agent`,
      );
      continue;
    }
    plan.values.push({
      path: file,
      keyPath: ['hooks', 'userPromptSubmit'],
      value: kiroCliHookBlock(prompt),
      arrayItem: true,
    });
    plan.values.push({ path: file, keyPath: ['hooks', 'stop'], value: kiroCliHookBlock(stop), arrayItem: true });
  }
  return plan;
}

import { deepStrictEqual, equal } from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MARKETPLACE_JSON, PLUGIN_FILES } from './plugin-files.generated.js';

const plugin = new URL('../../../../plugins/cairn/', import.meta.url);

test("the embedded plugin files equal the repository's (if not: npm run build -w cairn-mcp-installer)", () => {
  const skills = readdirSync(new URL('skills/', plugin)).map((name) => `skills/${name}/SKILL.md`);
  const hooks = readdirSync(new URL('hooks/', plugin)).map((name) => `hooks/${name}`);
  deepStrictEqual(
    Object.keys(PLUGIN_FILES).sort(),
    [...skills, ...hooks, 'steering/cairn.md', '.claude-plugin/plugin.json'].sort(),
  );
  for (const [name, text] of Object.entries(PLUGIN_FILES))
    equal(text, readFileSync(new URL(name, plugin), 'utf8'), name);
  equal(MARKETPLACE_JSON, readFileSync(new URL('../../.claude-plugin/marketplace.json', plugin), 'utf8'));
});

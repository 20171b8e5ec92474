// Each tool's rule file read on its own: activation into applies, the title, and what is reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAgents } from './agents.js';
import { parseClaude } from './claude.js';
import { parseCline } from './cline.js';
import { parseContinue } from './continue.js';
import { parseCopilot } from './copilot.js';
import { parseCursor } from './cursor.js';
import { parserFor } from './formats.js';
import { splitFrontMatter } from './front-matter.js';
import { parseKiro } from './kiro.js';
import { parseWindsurf } from './windsurf.js';

const fm = (lines: string[], body = '# Title\n\nBody text.') => `---\n${lines.join('\n')}\n---\n${body}\n`;

test('front matter: scalars, quoted strings, inline and block lists; a bad line is a problem', () => {
  const r = splitFrontMatter(
    fm(['a: true', 'b: "x, y"', "c: 'it''s'", 'd: [one, "two"]', 'e:', '  - three', '  - four', 'oops']),
  );
  assert.deepEqual(r.fields, { a: true, b: 'x, y', c: "it's", d: ['one', 'two'], e: ['three', 'four'] });
  assert.deepEqual(r.problems, ['front matter line "oops" is not "key: value"']);
  assert.equal(r.body.trim(), '# Title\n\nBody text.');
  assert.deepEqual(splitFrontMatter('no front matter').fields, {});
});

test('cursor: alwaysApply, globs as a string or a list (prefixed in a nested folder), description, manual', () => {
  const always = parseCursor('.cursor/rules/a.mdc', fm(['alwaysApply: true']));
  assert.deepEqual([always.title, always.content, always.applies], ['Title', 'Body text.', { always: true }]);
  const globs = parseCursor('web/.cursor/rules/b.mdc', fm(['globs: src/**/*.ts, *.tsx', 'alwaysApply: false']));
  assert.deepEqual(globs.applies, { files: ['web/src/**/*.ts', 'web/*.tsx'], when: undefined });
  const list = parseCursor('.cursor/rules/c.mdc', fm(['globs:', '  - "**/*.sql"', 'description: Writing SQL']));
  assert.deepEqual(list.applies, { files: ['**/*.sql'], when: 'Writing SQL' });
  const manual = parseCursor('.cursor/rules/deep/d.mdc', fm(['colour: red'], 'No heading here.'));
  assert.deepEqual(manual.applies, {});
  assert.equal(manual.title, 'd', 'no heading: the file name');
  assert.equal(manual.notes.length, 2, manual.notes.join('; '));
  assert.match(manual.notes[0]!, /"colour" is not understood/);
  assert.match(manual.notes[1]!, /manual rule/);
});

test('claude: the root CLAUDE.md always, a nested one for its folder, .claude/rules paths or always', () => {
  assert.deepEqual(parseClaude('CLAUDE.md', '# Root\n\nx').applies, { always: true });
  assert.deepEqual(parseClaude('api/CLAUDE.md', 'x').applies, { files: ['api/**'] });
  assert.equal(parseClaude('api/CLAUDE.md', 'x').title, 'api CLAUDE');
  assert.deepEqual(parseClaude('.claude/rules/t.md', fm(['paths:', '  - "tests/**"'])).applies, {
    files: ['tests/**'],
  });
  assert.deepEqual(parseClaude('.claude/rules/u.md', 'plain').applies, { always: true });
});

test('agents: root always, nested for its folder', () => {
  assert.deepEqual(parseAgents('AGENTS.md', 'x').applies, { always: true });
  assert.deepEqual(parseAgents('pkg/db/AGENTS.md', 'x').applies, { files: ['pkg/db/**'] });
});

test('copilot: copilot-instructions always, instructions files applyTo and description', () => {
  assert.deepEqual(parseCopilot('.github/copilot-instructions.md', 'x').applies, { always: true });
  const r = parseCopilot(
    '.github/instructions/ts.instructions.md',
    fm(['applyTo: "**/*.ts,**/*.tsx"', 'description: TypeScript code']),
  );
  assert.deepEqual(r.applies, { files: ['**/*.ts', '**/*.tsx'], when: 'TypeScript code' });
  assert.deepEqual(parseCopilot('.github/instructions/all.instructions.md', fm(['applyTo: "**"'])).applies, {
    always: true,
  });
});

test('kiro: always, fileMatch (string or list), auto, manual', () => {
  assert.deepEqual(parseKiro('.kiro/steering/a.md', fm(['inclusion: always'])).applies, { always: true });
  assert.deepEqual(parseKiro('.kiro/steering/n.md', 'no front matter').applies, { always: true });
  assert.deepEqual(
    parseKiro('.kiro/steering/b.md', fm(['inclusion: fileMatch', 'fileMatchPattern: ["*.py", "lib/**"]'])).applies,
    { files: ['*.py', 'lib/**'], when: undefined },
  );
  assert.deepEqual(parseKiro('.kiro/steering/c.md', fm(['inclusion: auto', 'description: Deploying'])).applies, {
    when: 'Deploying',
  });
  const manual = parseKiro('.kiro/steering/d.md', fm(['inclusion: manual']));
  assert.match(manual.notes.join(), /manual rule/);
});

test('windsurf and devin: always_on, glob, model_decision, manual', () => {
  assert.deepEqual(parseWindsurf('.windsurf/rules/a.md', fm(['trigger: always_on'])).applies, { always: true });
  const g = parseWindsurf('.devin/rules/b.md', fm(['trigger: glob', 'globs: "*.go"']));
  assert.equal(g.format, 'devin');
  assert.deepEqual(g.applies, { files: ['*.go'], when: undefined });
  assert.deepEqual(
    parseWindsurf('.windsurf/rules/c.md', fm(['trigger: model_decision', 'description: Reviewing'])).applies,
    { when: 'Reviewing' },
  );
  assert.match(parseWindsurf('.windsurf/rules/d.md', fm(['trigger: manual'])).notes.join(), /manual rule/);
});

test('continue: name as title, alwaysApply, globs, description; no activation is always', () => {
  const r = parseContinue('.continue/rules/a.md', fm(['name: Named rule', 'globs: "**/*.rs"', 'alwaysApply: false']));
  assert.equal(r.title, 'Named rule');
  assert.deepEqual(r.applies, { files: ['**/*.rs'], when: undefined });
  assert.deepEqual(parseContinue('.continue/rules/b.md', 'x').applies, { always: true });
});

test('cline: a .clinerules file or folder; paths, else always', () => {
  assert.deepEqual(parseCline('.clinerules', 'x').applies, { always: true });
  assert.deepEqual(parseCline('.clinerules/db.md', fm(['paths:', '  - "db/**"'])).applies, { files: ['db/**'] });
});

test('which files are rule files', () => {
  for (const p of [
    '.cursor/rules/a.mdc',
    'x/.cursor/rules/y/b.mdc',
    'CLAUDE.md',
    'a/CLAUDE.md',
    '.claude/rules/r.md',
    'AGENTS.md',
    'a/b/AGENTS.md',
    '.github/copilot-instructions.md',
    '.github/instructions/x/y.instructions.md',
    '.kiro/steering/a.md',
    '.windsurf/rules/a.md',
    '.devin/rules/a.md',
    '.continue/rules/a.md',
    '.clinerules',
    '.clinerules/a.md',
  ])
    assert.ok(parserFor(p), p);
  for (const p of ['README.md', '.cursor/rules/a.md', '.github/instructions/a.md', 'docs/agents.md'])
    assert.equal(parserFor(p), undefined, p);
});

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Tool } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { owner, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

// tools/list as a client loads it into a model's context : measured through the MCP SDK
// client, and every tool's result checked against the output schema the list gives for it.

useTenantCairn();

/**
 * The JSON text of the tools/list result, in characters: at most a third of the 29.6k a session
 * measured before the schemas were cut to what clients read (31,455 at commit c5773b3 here).
 */
const MAX_TOOLS_LIST_CHARS = 9_866;

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
let listed: Map<string, Tool>;

async function tools(): Promise<Map<string, Tool>> {
  listed ??= new Map((await owner.listTools()).tools.map((t) => [t.name, t]));
  return listed;
}

/** Calls a tool through the SDK client (which checks the result against the listed schema itself) and checks it again with Ajv. */
async function checked(name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const schema = (await tools()).get(name)?.outputSchema;
  assert.ok(schema, `${name} lists an output schema`);
  const result = await callTool(owner, name, args);
  const validate = ajv.compile(schema);
  assert.ok(validate(result), `${name}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(result)}`);
  return result;
}

describe('tools/list', () => {
  test(`is at most ${MAX_TOOLS_LIST_CHARS} characters of JSON for the nine tools`, async (t) => {
    const result = await owner.listTools();
    assert.equal(result.tools.length, 9);
    const size = JSON.stringify(result).length;
    t.diagnostic(`tools/list: ${size} characters`);
    assert.ok(size <= MAX_TOOLS_LIST_CHARS, `tools/list is ${size} characters, over ${MAX_TOOLS_LIST_CHARS}`);
  });

  test('lists valid draft 2020-12 schemas: objects naming their fields, nothing a client need not read', async () => {
    for (const tool of (await tools()).values()) {
      for (const schema of [tool.inputSchema, tool.outputSchema!]) {
        assert.doesNotThrow(() => ajv.compile(schema), tool.name);
        assert.equal(schema.type, 'object', tool.name);
        assert.ok(!('$schema' in schema), `${tool.name}: MCP assumes draft 2020-12 without $schema`);
        assert.doesNotMatch(JSON.stringify(schema), /9007199254740991/, `${tool.name}: no safe-integer bounds`);
      }
      assert.ok(Object.keys(tool.outputSchema!.properties ?? {}).length > 0, `${tool.name} names its result's fields`);
    }
  });

  test('get_guidance still asks for 4-8 concerns, with two examples, and for files and project', async () => {
    const text = (await tools()).get('get_guidance')!.description ?? '';
    assert.match(text, /`concerns`: 4-8 short phrases/);
    assert.equal([...text.matchAll(/for "[^"]+": \[("[^"]+", )+"[^"]+"\]/g)].length, 2, text);
    assert.match(text, /`files` \(paths you will read or change\) and `project` \(the repository name\)/);
  });

  test("every tool's structured result validates against the output schema it lists", async () => {
    const packs = await checked('list_datapacks');
    const personal = packs.datapacks.find((d: { scope: string }) => d.scope === 'personal');
    const { datapack } = await checked('create_datapack', { name: 'Listed schemas' });
    assert.equal(datapack.name, 'Listed schemas');
    const saved = await checked('save_entry', {
      datapack: personal.id,
      kind: 'preference',
      title: 'Package manager',
      content: 'Always use pnpm for JavaScript projects, never npm or yarn.',
      tags: ['tooling'],
      applies: { files: ['package.json'], when: 'Adding or upgrading a JavaScript dependency.' },
    });
    assert.equal(saved.status, 'created');
    const duplicate = await checked('save_entry', {
      datapack: personal.id,
      kind: 'preference',
      title: 'Package manager',
      content: 'Always use pnpm for JavaScript projects, never npm or yarn.',
    });
    assert.equal(duplicate.status, 'duplicate');
    const found = await checked('search', { query: 'pnpm' });
    assert.equal(found.results[0].entry.id, saved.entry.id);
    const guidance = await checked('get_guidance', {
      task: 'add a dependency',
      concerns: ['javascript dependency'],
      files: ['package.json'],
      project: tenant.orgName,
    });
    assert.ok(JSON.stringify(guidance.levels).includes(saved.entry.id), 'the preference applies to package.json');
    const updated = await checked('update_entry', {
      id: saved.entry.id,
      expectedVersion: 1,
      content: 'Always use pnpm, never npm or yarn.',
    });
    assert.equal(updated.entry.version, 2);
    const read = await checked('get_entry', { id: saved.entry.id, includeHistory: true });
    assert.equal(read.history.length, 2);
    const deleted = await checked('delete_entry', { id: saved.entry.id, expectedVersion: 2 });
    assert.equal(deleted.deleted, true);
    const restored = await checked('restore_entry', { id: saved.entry.id });
    assert.equal(restored.undeleted, true);
  });

  test('a listed output schema still refuses a result without its fields or of the wrong type', async () => {
    const validate = ajv.compile((await tools()).get('save_entry')!.outputSchema!);
    assert.equal(validate({ status: 'created', redacted: [], message: 'Saved.' }), false, 'no entry');
    assert.equal(
      validate({ status: 'stored', entry: {}, redacted: [], message: 'Saved.' }),
      false,
      'an unknown status',
    );
    assert.equal(
      validate({ status: 'created', entry: 'ent_1', redacted: [], message: 'Saved.' }),
      false,
      'an entry that is not an object',
    );
  });
});

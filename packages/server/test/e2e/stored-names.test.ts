// Names other people see in terminals and lists (datapacks, teams) are stored without control or
// bidirectional characters, whichever door they come through.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTeam, renameTeamTo } from '../../src/domain/teams.js';
import { callTool } from '../../src/testing/mcp-client.js';
import { member, server, tenant, useTenantCairn } from './tenant-cairn.fixture.js';

useTenantCairn();

const hostile = 'Ops\u001b[2J\u001b]8;;https://evil.example\u0007 pack\u202e\ngnp.exe';

test('a datapack named through MCP or renamed through the JSON API keeps no escape, newline or bidi mark', async () => {
  const created = await callTool(member, 'create_datapack', { name: hostile, scope: 'personal' });
  assert.equal(created.datapack.name, 'Ops[2J]8;;https://evil.example pack gnp.exe');
  const res = await fetch(`${server.baseUrl}/api/v1/datapacks/${created.datapack.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${tenant.member.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: '\u2066Renamed\u2069\tpack' }),
  });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { datapack: { name: string } }).datapack.name, 'Renamed pack');
  const listed = await callTool(member, 'list_datapacks', {});
  assert.ok(JSON.stringify(listed).includes('Renamed pack'));
  const empty = await callTool(member, 'create_datapack', { name: '\u001b\u202e', scope: 'personal' }).catch(
    (e: Error) => e,
  );
  assert.ok(empty instanceof Error, 'a name of nothing but control characters is refused, not stored empty');
});

test('a team created or renamed keeps no control character', async () => {
  const team = await createTeam(server.cairn.domain, server.cairn.auth, tenant.orgId, 'Payments\u001b[31m core\r\n');
  assert.equal(team.name, 'Payments[31m core');
  const renamed = await renameTeamTo(server.cairn.domain, server.cairn.auth, team.id, 'Risk\u200f team');
  assert.equal(renamed.name, 'Risk team');
});

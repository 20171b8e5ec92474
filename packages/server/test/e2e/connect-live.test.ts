// The Connect dialog's "Waiting for your client…": which of my keys a client used since the dialog
// made its command or key, with the name the client gave at initialize. Portal session only.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { INSTALLER_USER_AGENT } from '@cairn/contract';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { runFileOnEachBackend } from '../../src/testing/backends.js';
import { createTenant, startTenantCairn, type TestTenant } from '../../src/testing/tenants.js';
import { startTestCairn, type TestCairn } from '../../src/testing/test-cairn.js';

runFileOnEachBackend();

let server: TestCairn;
let tenant: TestTenant;
before(async () => ({ server, tenant } = await startTenantCairn()));
after(() => server?.close());

async function session(email: string): Promise<Record<string, string>> {
  const origin = new URL(server.baseUrl).origin;
  const signIn = await fetch(`${server.baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  });
  assert.equal(signIn.status, 200);
  return {
    cookie: signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; '),
    origin,
    'content-type': 'application/json',
  };
}

const connected = async (headers: Record<string, string>, since: string) => {
  const res = await fetch(`${server.baseUrl}/api/v1/keys/connected?since=${encodeURIComponent(since)}`, { headers });
  return {
    status: res.status,
    body: (await res.json()) as {
      connection?: { client: string; keyName: string; userName: string; datapacks: number } | null;
      error?: { message: string };
    },
  };
};

test('nothing is reported until a client uses a key made after `since`; then the client, the user and their datapacks', async () => {
  const owner = await session(tenant.owner.email);
  const since = new Date().toISOString();
  // A client already connected with an older key is not the one the dialog waits for.
  const busy = new Client({ name: 'claude-code', version: '2.1.330' });
  await busy.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${tenant.owner.key}`, 'User-Agent': INSTALLER_USER_AGENT } },
    }),
  );
  await busy.callTool({ name: 'list_datapacks', arguments: {} });
  await busy.close();
  assert.deepEqual((await connected(owner, since)).body, { connection: null });
  const made = (await (
    await fetch(`${server.baseUrl}/api/v1/keys`, {
      method: 'POST',
      headers: owner,
      body: JSON.stringify({ name: 'Cursor on laptop' }),
    })
  ).json()) as { key: string };
  assert.deepEqual(
    (await connected(owner, since)).body,
    { connection: null },
    'a key that was only made has not connected',
  );

  const client = new Client({ name: 'cursor-vscode', title: 'Cursor', version: '1.7.2' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${made.key}`, 'User-Agent': INSTALLER_USER_AGENT } },
    }),
  );
  await client.callTool({ name: 'list_datapacks', arguments: {} });
  const { status, body } = await connected(owner, since);
  assert.equal(status, 200);
  assert.equal(body.connection?.client, 'Cursor 1.7.2');
  assert.equal(body.connection?.keyName, 'Cursor on laptop');
  assert.equal(body.connection?.userName, 'owner');
  assert.ok((body.connection?.datapacks ?? 0) >= 2, 'personal and organization datapacks');
  assert.deepEqual(
    (await connected(owner, new Date(Date.now() + 60_000).toISOString())).body,
    { connection: null },
    'nothing since a later time',
  );
  await client.close();
});

test('another user never sees my connections; a key cannot ask; a bad time says what to send', async () => {
  const outsider = await session(tenant.outsider.email);
  assert.deepEqual((await connected(outsider, new Date(0).toISOString())).body, { connection: null });
  const withKey = await fetch(`${server.baseUrl}/api/v1/keys/connected?since=${new Date(0).toISOString()}`, {
    headers: { authorization: `Bearer ${tenant.owner.key}` },
  });
  assert.equal(withKey.status, 403);
  const bad = await connected(await session(tenant.owner.email), 'yesterday');
  assert.equal(bad.status, 400);
  assert.match(bad.body.error?.message ?? '', /ISO date and time/);
});

test("the dialog's status poll has a budget of its own: polling past the person's request limit leaves their other calls answering", async () => {
  const strict = await startTestCairn({ env: { CAIRN_REQUESTS_PER_MINUTE: '5' } });
  try {
    const people = await createTenant(strict.cairn);
    const base = strict.baseUrl;
    const origin = new URL(base).origin;
    const signIn = await fetch(`${base}/api/auth/sign-in/email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ email: people.owner.email, password: 'correct horse battery' }),
    });
    const cookie = signIn.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const since = encodeURIComponent(new Date().toISOString());
    const polls = await Promise.all(
      Array.from({ length: 20 }, () => fetch(`${base}/api/v1/keys/connected?since=${since}`, { headers: { cookie } })),
    );
    assert.deepEqual(
      polls.map((r) => r.status),
      Array(20).fill(200),
      'four times the request limit of polls, all answered',
    );
    const datapacks = await fetch(`${base}/api/v1/datapacks`, { headers: { cookie } });
    assert.equal(datapacks.status, 200, 'the portal still answers the person while the dialog polls');
    // The poll's own budget is bounded too: a runaway loop gets 429 with Retry-After, and still not the other calls.
    let refused: Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await fetch(`${base}/api/v1/keys/connected?since=${since}`, { headers: { cookie } });
      if (r.status === 429) refused = r;
      else assert.equal(r.status, 200);
    }
    assert.ok(refused, 'the status budget ends');
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(
      ((await refused.json()) as { error: { message: string } }).error.message,
      /connection checks .* the Connect dialog tries again by itself/,
    );
    assert.equal((await fetch(`${base}/api/v1/datapacks`, { headers: { cookie } })).status, 200);
    // An API key gets no such budget: the poll endpoint is the portal's, and a key's calls count on its own limit.
    const withKey = await Promise.all(
      Array.from({ length: 6 }, () =>
        fetch(`${base}/api/v1/keys/connected?since=${since}`, {
          headers: { authorization: `Bearer ${people.member.key}` },
        }),
      ),
    );
    assert.ok(
      withKey.some((r) => r.status === 429),
      withKey.map((r) => r.status).join(','),
    );
  } finally {
    await strict.close();
  }
});

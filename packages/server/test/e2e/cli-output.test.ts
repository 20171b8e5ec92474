// What the cairn CLI prints: on a healthy database no warnings that read like corruption (there were
// seventeen better-auth schema lines on every SQLite command); a first start that names the portal.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { forEachBackend } from '../../src/testing/backends.js';
import { cairnCommand } from '../../src/testing/cairn-process.js';
import { createTestDatabase } from '../../src/testing/postgres.js';
import { freePort } from '../../src/testing/test-cairn.js';

const SERVER = fileURLToPath(new URL('../../', import.meta.url));

function cli(
  args: string[],
  env: Record<string, string>,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...cairnCommand(), ...args],
      { cwd: SERVER, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code) || 1 : 0, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? '');
  });
}

forEachBackend(({ name: backend, skip, postgresServerUrl }) => {
  describe(`the cairn CLI on a healthy ${backend} database`, { skip }, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
    let drop: (() => Promise<void>) | undefined;
    after(async () => {
      rmSync(dataDir, { recursive: true, force: true });
      await drop?.();
    });

    test('prints no warnings, on the first command and on later ones', async () => {
      const env: Record<string, string> = { CAIRN_DATA_DIR: dataDir };
      if (postgresServerUrl) {
        const db = await createTestDatabase(postgresServerUrl);
        drop = db.drop;
        env.DATABASE_URL = db.url;
      }
      const created = await cli(
        ['users', 'create', '--email', 'quiet@example.test', '--password-stdin'],
        env,
        'a quiet long passphrase 2026\n',
      );
      assert.equal(created.code, 0, created.stderr);
      for (const run of [
        created,
        await cli(['keys', 'list', '--user', 'quiet@example.test'], env),
        await cli(['keys', 'list', '--user', 'quiet@example.test'], env),
      ]) {
        // stderr carries the CLI's own one-line messages ("Created …"); log lines would carry a level.
        assert.doesNotMatch(run.stderr, /\b(WARN|ERROR)\b|different type/);
        assert.doesNotMatch(run.stdout, /\b(WARN|ERROR)\b|different type/);
      }
      const plain = await cli(['status'], env);
      assert.equal(plain.code, 0, plain.stderr);
      assert.match(
        plain.stdout,
        new RegExp(
          `^Database: ${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'} .*\nUsers: 1\nEntries: \\d+\nSearch: hybrid`,
        ),
      );
      assert.match(plain.stdout, /Embeddings: no provider \(set CAIRN_EMBEDDINGS_URL/);
      const withProvider = await cli(['status'], {
        ...env,
        CAIRN_EMBEDDINGS_URL: 'http://127.0.0.1:9/v1',
        CAIRN_EMBEDDINGS_MODEL: 'nomic-embed-text',
        CAIRN_EMBEDDINGS_API_KEY: 'sk-never-printed-123',
      });
      assert.equal(withProvider.code, 0, withProvider.stderr);
      assert.match(
        withProvider.stdout,
        /Embeddings: nomic-embed-text at http:\/\/127\.0\.0\.1:9\/v1: 0 of \d+ entries/,
      );
      assert.doesNotMatch(withProvider.stdout + withProvider.stderr, /sk-never-printed/);
    });
  });
});

test('the first start names the portal and says the first account can be made there', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-banner-'));
  const port = await freePort();
  const child = spawn(process.execPath, [...cairnCommand(), 'serve'], {
    cwd: SERVER,
    env: { PATH: process.env.PATH ?? '', CAIRN_DATA_DIR: dataDir, PORT: String(port) },
  });
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner within 60 s: ${out}`)), 60_000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('keys create')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`cairn serve exited with ${code}: ${out}`)));
    });
    const base = `http://127.0.0.1:${port}`;
    assert.match(out, new RegExp(`Portal: +${base}/\n`));
    assert.match(out, new RegExp(`Open the portal at ${base}/ and sign up`));
  } finally {
    child.kill('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repositoryOf, repositoryPath } from './project.js';

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: cwd, GIT_CONFIG_NOSYSTEM: '1' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
};
const fresh = (name = 'checkout') => {
  const dir = join(mkdtempSync(join(tmpdir(), 'cairn-project-')), name);
  mkdirSync(join(dir, 'a', 'b'), { recursive: true });
  return dir;
};

describe('the project of a working directory', () => {
  for (const [remote, project] of [
    ['https://github.com/acme/billing-service.git', 'billing-service'],
    ['git@github.com:acme/Billing-Service.git', 'Billing-Service'],
    ['ssh://git@host:2222/acme/ledger', 'ledger'],
    ['/srv/git/payments.git/', 'payments'],
    ['git@host:solo.git', 'solo'],
  ]) {
    it(`is the origin remote's last path segment without .git: ${remote}`, () => {
      const dir = fresh();
      git(dir, 'init', '-q');
      git(dir, 'remote', 'add', 'upstream', 'https://example.test/not/this.git');
      git(dir, 'remote', 'add', 'origin', remote!);
      assert.deepEqual(repositoryOf(join(dir, 'a', 'b')), { root: dir, project });
    });
  }

  it('is the only remote when there is no origin, and the folder name without any', () => {
    const dir = fresh('folder-name');
    git(dir, 'init', '-q');
    assert.deepEqual(repositoryOf(join(dir, 'a')), { root: dir, project: 'folder-name' });
    git(dir, 'remote', 'add', 'fork', 'https://example.test/me/forked-repo');
    assert.equal(repositoryOf(dir).project, 'forked-repo');
  });

  it("reads a linked worktree's remote through its .git file and commondir", () => {
    const main = fresh('main-clone');
    git(main, 'init', '-q');
    git(main, 'remote', 'add', 'origin', 'https://example.test/acme/worktree-app.git');
    git(main, '-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-q', '--allow-empty', '-m', 'x');
    const linked = join(main, '..', 'linked');
    git(main, 'worktree', 'add', '-q', linked);
    assert.deepEqual(repositoryOf(linked), { root: linked, project: 'worktree-app' });
  });

  it('is the working folder outside any repository', () => {
    const dir = fresh('plain-folder');
    assert.deepEqual(repositoryOf(dir), { root: dir, project: 'plain-folder' });
  });

  it('does not take a broken .git file for a repository', () => {
    const dir = fresh('broken');
    writeFileSync(join(dir, '.git'), 'not a pointer');
    assert.equal(repositoryOf(join(dir, 'a')).root, join(dir, 'a'));
  });
});

describe('a file path as the repository names it', () => {
  const repo = { root: '/w/billing', project: 'billing' };
  it('is relative to the root, with forward slashes', () => {
    assert.equal(repositoryPath(repo, '/w/billing/src', '/w/billing/migrations/0042.sql'), 'migrations/0042.sql');
    assert.equal(repositoryPath(repo, '/w/billing/src', 'api/x.ts'), 'src/api/x.ts');
  });
  it('is nothing outside the repository or for the root itself', () => {
    assert.equal(repositoryPath(repo, '/w/billing', '/etc/passwd'), undefined);
    assert.equal(repositoryPath(repo, '/w/billing', '../other/x.ts'), undefined);
    assert.equal(repositoryPath(repo, '/w/billing', '/w/billing'), undefined);
  });
});

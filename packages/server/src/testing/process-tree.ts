import { execFileSync } from 'node:child_process';

/**
 * Kills these processes. npx runs its package through a shell, so the program a test cares about
 * is a grandchild that would outlive npx on a stuck wait: list them with `descendants` first.
 */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/** The ids of every process below `root`, found from `ps`; take them before closing `root`. */
export function descendants(root: number | null | undefined): number[] {
  if (root == null) return [];
  const rows = execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of rows) {
      if (ppid === parent) {
        found.push(pid);
        queue.push(pid);
      }
    }
  }
  return found;
}

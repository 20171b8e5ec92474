/** Summaries of a V8 .cpuprofile: where the samples landed, by function and by package. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  busyMs: number;
  idleMs: number;
  functions: SelfTime[];
  packages: SelfTime[];
}

const REPO = /^file:\/\/.*?\/packages\/server\//;

export function summarizeProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const profiler = profilerNodes(profile.nodes, byNode);
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = byNode.get(id)!.callFrame;
    if (profiler.has(id)) return;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    add(functions, functionLabel(frame), ms);
    add(packages, packageOf(frame.url, frame.functionName), ms);
  });
  const busyMs = [...packages.values()].reduce((a, b) => a + b, 0);
  return {
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    functions: ranked(functions, busyMs, top),
    packages: ranked(packages, busyMs, top),
  };
}

/** The inspector calls that start and stop the profile show up in it; they are not Cairn's cost. */
function profilerNodes(nodes: ProfileNode[], byNode: Map<number, ProfileNode>): Set<number> {
  const found = new Set<number>();
  const mark = (id: number): void => {
    found.add(id);
    for (const child of byNode.get(id)?.children ?? []) mark(child);
  };
  for (const n of nodes) if (n.callFrame.url === 'node:inspector') mark(n.id);
  return found;
}

function functionLabel({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '(native)';
  return `${functionName || '(anonymous)'} ${where}`;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length);
  return url.replace(REPO, '');
}

/** Groups a frame under its npm package, Cairn's own folder, Node internals, or V8 (GC, program). */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node: internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + 'node_modules/'.length).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  const own = url.replace(REPO, '');
  return own === url ? url : `cairn ${own.split('/').slice(0, 2).join('/')}`;
}

function add(totals: Map<string, number>, key: string, ms: number): void {
  totals.set(key, (totals.get(key) ?? 0) + ms);
}

function ranked(totals: Map<string, number>, busyMs: number, top: number): SelfTime[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => ({ name, ms: Math.round(ms), percent: Math.round((1000 * ms) / busyMs) / 10 }));
}

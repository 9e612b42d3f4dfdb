/**
 * Where the gateway's CPU time goes: a V8 .cpuprofile (from `node --cpu-prof`) reduced to self time per
 * function and per module, and inclusive time of the gateway's own functions, optionally only for the samples
 * taken inside one measured cell. Also a CLI: `node --import tsx bench/profile.ts FILE.cpuprofile`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  ms: number;
  /** Percent of the busy (non-idle) time in the window. */
  pct: number;
}

export interface ProfileSummary {
  file: string;
  /** True when only the samples inside the measured cell were counted. */
  windowed: boolean;
  sampledMs: number;
  busyMs: number;
  selfByFunction: Share[];
  selfByModule: Share[];
  /** Time with a gateway/ function anywhere on the stack, by function. */
  inclusiveGateway: Share[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/**
 * `gateway/core/pipeline` from `file:///…/dist/gateway/core/pipeline.js`; `undici` from its node_modules path;
 * the bench's own files (the proxy, the load client in request-cost.ts) as one.
 */
export function moduleOf(url: string, functionName: string): string {
  if (!url) return SPECIAL.has(functionName) ? functionName : '(native / V8)';
  if (url.startsWith('node:')) return 'node: built-ins';
  // The only WebAssembly in the gateway is llhttp, the HTTP parser undici (the upstream client) compiles to wasm.
  if (url.startsWith('wasm://')) return 'npm: undici (llhttp wasm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `npm: ${pkg[1]}`;
  if (/\/bench\//.test(url)) return 'bench (the proxy, the client)';
  const own = /\/(?:dist\/)?(gateway\/[^/]+)\//.exec(url) ?? /\/(?:dist\/)?(gateway)\/[^/]+$/.exec(url);
  return own?.[1] ?? url.replace(/^file:\/\//, '');
}

function shortUrl(url: string): string {
  const pkg = /node_modules\/(.*)$/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/(?:dist\/)?((?:gateway|bench)\/.*)$/.exec(url);
  return own ? own[1]! : url.replace(/^file:\/\//, '');
}

export function frameName(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  const name = functionName || '(anonymous)';
  return url ? `${name} (${shortUrl(url)}:${lineNumber + 1})` : name;
}

function top(map: Map<string, number>, busyMs: number, limit: number): Share[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, ms: us / 1000, pct: busyMs > 0 ? (100 * us) / 1000 / busyMs : 0 }));
}

export function summariseProfile(file: string, windowUs?: [number, number], limit = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  // Sample i covers the time until sample i+1 (its delta), the way DevTools attributes it.
  const times: number[] = [];
  let t = profile.startTime;
  for (const d of profile.timeDeltas) times.push((t += d));
  const inWindow = (i: number): boolean =>
    !windowUs || ((times[i] ?? 0) >= windowUs[0] && (times[i] ?? 0) <= windowUs[1]);
  const windowed = windowUs !== undefined && profile.samples.some((_, i) => inWindow(i));
  const counted = (i: number): boolean => !windowed || inWindow(i);

  const selfFn = new Map<string, number>();
  const selfMod = new Map<string, number>();
  const incl = new Map<string, number>();
  let sampledUs = 0;
  let idleUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (!counted(i)) continue;
    const us = (times[i + 1] ?? times[i] ?? 0) - (times[i] ?? 0);
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    sampledUs += us;
    if (node.callFrame.functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const fn = frameName(node);
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + us);
    const mod = moduleOf(node.callFrame.url, node.callFrame.functionName);
    selfMod.set(mod, (selfMod.get(mod) ?? 0) + us);
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = byId.get(id);
      if (!n || !/\/gateway\//.test(n.callFrame.url)) continue;
      const name = frameName(n);
      if (seen.has(name)) continue;
      seen.add(name);
      incl.set(name, (incl.get(name) ?? 0) + us);
    }
  }
  const busyMs = (sampledUs - idleUs) / 1000;
  return {
    file,
    windowed,
    sampledMs: sampledUs / 1000,
    busyMs,
    selfByFunction: top(selfFn, busyMs, limit),
    selfByModule: top(selfMod, busyMs, limit),
    inclusiveGateway: top(incl, busyMs, limit),
  };
}

export function profileMarkdown(s: ProfileSummary, title: string): string {
  const rows = (shares: Share[]): string =>
    shares.map((x) => `| ${x.name.replace(/\|/g, '\\|')} | ${x.ms.toFixed(0)} | ${x.pct.toFixed(1)}% |`).join('\n');
  const head = (what: string): string => `| ${what} | ms | % of busy |\n|---|---:|---:|`;
  return [
    `## ${title}`,
    '',
    `Profile: \`${s.file}\`${s.windowed ? ' (samples inside the measured cell only)' : ' (whole process)'}: ${s.sampledMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy (not idle).`,
    '',
    '### Self time by module',
    '',
    head('module'),
    rows(s.selfByModule),
    '',
    '### Self time by function',
    '',
    head('function (file:line of the code that ran)'),
    rows(s.selfByFunction),
    '',
    '### Inclusive time of gateway functions (on the stack)',
    '',
    head('function'),
    rows(s.inclusiveGateway),
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node --import tsx bench/profile.ts FILE.cpuprofile\n');
    process.exit(2);
  }
  process.stdout.write(profileMarkdown(summariseProfile(file), 'CPU profile'));
}

/**
 * The per-row profiles of `bench/request-cost.ts --profile-dir DIR` reduced to µs per request: self time by
 * module and by function, and the inclusive time of the gateway's own functions, for each row (a gateway path,
 * the bare proxy, the client alone), summed over the rounds. Samples are counted (× the 250 µs interval) rather
 * than summed by their time deltas: on a loaded machine a sample's delta includes time the process was not
 * running. The client's own work is in every row (the direct rows are the client alone).
 *
 * Usage: node --import tsx bench/profile-rows.ts DIR [--rows a,b] [--top N]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { frameName, moduleOf, type CpuProfile } from './profile.js';

const INTERVAL_US = 250;
const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: node --import tsx bench/profile-rows.ts DIR [--rows a,b] [--top N]\n');
  process.exit(2);
}
function flag(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
const TOP = Number(flag('--top') ?? '25');
const meta = JSON.parse(readFileSync(join(dir, 'rows.json'), 'utf8')) as { requests: number; rows: string[] };
const wanted = flag('--rows')?.split(',') ?? meta.rows;
const fileId = (id: string): string => id.replace(/[^a-z0-9-]+/gi, '_');

function add(map: Map<string, number>, k: string, us: number): void {
  map.set(k, (map.get(k) ?? 0) + us);
}

function reduce(id: string): void {
  const files = readdirSync(dir!).filter((f) => f.startsWith(`${fileId(id)}.r`) && f.endsWith('.cpuprofile'));
  const selfFn = new Map<string, number>();
  const selfMod = new Map<string, number>();
  const incl = new Map<string, number>();
  let busy = 0;
  let gatewayOnStack = 0;
  for (const f of files) {
    const p = JSON.parse(readFileSync(join(dir!, f), 'utf8')) as CpuProfile;
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    for (const s of p.samples) {
      const node = byId.get(s)!;
      if (node.callFrame.functionName === '(idle)') continue;
      busy += INTERVAL_US;
      add(selfFn, frameName(node), INTERVAL_US);
      add(selfMod, moduleOf(node.callFrame.url, node.callFrame.functionName), INTERVAL_US);
      const seen = new Set<string>();
      for (let at: number | undefined = node.id; at !== undefined; at = parent.get(at)) {
        const n = byId.get(at)!;
        if (!/\/gateway\//.test(n.callFrame.url)) continue;
        const name = frameName(n);
        if (seen.has(name)) continue;
        seen.add(name);
        add(incl, name, INTERVAL_US);
      }
      if (seen.size > 0) gatewayOnStack += INTERVAL_US;
    }
  }
  const n = meta.requests * files.length;
  const table = (title: string, map: Map<string, number>): string =>
    `| ${title} | µs/req |\n|---|---:|\n` +
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, us]) => `| ${k.replace(/\|/g, '\\|')} | ${(us / n).toFixed(1)} |`)
      .join('\n');
  process.stdout.write(
    `## ${id}: ${files.length} rounds × ${meta.requests} requests, busy ${(busy / n).toFixed(0)} µs/req under the profiler, ` +
      `a gateway frame on the stack ${(gatewayOnStack / n).toFixed(0)} µs/req\n\n` +
      `${table('self, by module', selfMod)}\n\n${table('self, by function', selfFn)}\n\n` +
      `${table('inclusive, gateway functions', incl)}\n\n`,
  );
}

for (const id of wanted) reduce(id);

/**
 * wrk (Debian's `wrk`), a C load generator: it leaves more of the shared core to the mock and the gateway than a
 * Node generator does. A generated Lua script sets the request and prints the summary as JSON (latency in µs).
 */
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadGenerator, LoadResult, LoadSpec } from './types.js';

/** `wrk 4.1.0`-style name, or undefined when wrk is not installed. */
export function wrkVersion(): string | undefined {
  const probe = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (probe.error) return undefined;
  const match = /wrk\s+(\S+)/.exec(`${probe.stdout}${probe.stderr}`);
  return match ? `wrk ${match[1]}` : 'wrk';
}

/** Lua long brackets take any text that does not contain their closing sequence. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function script(spec: LoadSpec): string {
  const headers = Object.entries(spec.headers)
    .map(([k, v]) => `wrk.headers[ ${luaString(k)} ] = ${luaString(v)}`)
    .join('\n');
  return `wrk.method = "POST"
wrk.body = ${luaString(spec.body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%.1f,"p90":%.1f,"p99":%.1f,"max":%.1f,"mean":%.3f}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;
}

interface WrkSummary {
  requests: number;
  duration_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function wrkGenerator(name: string): LoadGenerator {
  return {
    name,
    async run(spec: LoadSpec): Promise<LoadResult> {
      const dir = mkdtempSync(join(tmpdir(), 'tollgate-bench-wrk-'));
      try {
        const file = join(dir, 'request.lua');
        writeFileSync(file, script(spec));
        // wrk takes whole seconds only.
        const seconds = Math.max(1, Math.round(spec.durationS));
        const args = ['-t1', `-c${spec.connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', file, spec.url];
        const out = await new Promise<string>((resolve, reject) =>
          execFile('wrk', args, { encoding: 'utf8' }, (err, stdout, stderr) =>
            err ? reject(new Error(`wrk failed: ${err.message}\n${stderr}`)) : resolve(stdout),
          ),
        );
        const json = /^WRK_JSON (.*)$/m.exec(out)?.[1];
        if (!json) throw new Error(`wrk printed no summary:\n${out}`);
        const s = JSON.parse(json) as WrkSummary;
        const elapsedS = s.duration_us / 1e6;
        const ms = (us: number): number => us / 1000;
        return {
          requests: s.requests,
          non2xx: s.status,
          errors: s.connect + s.read + s.write + s.timeout,
          elapsedS,
          rps: s.requests / elapsedS,
          latencyMs:
            s.requests > 0
              ? { p50: ms(s.p50), p90: ms(s.p90), p99: ms(s.p99), max: ms(s.max), mean: ms(s.mean) }
              : undefined,
        };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

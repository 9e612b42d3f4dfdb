/**
 * CPU time and memory of a process from Linux's /proc; every reader returns undefined elsewhere, so the bench
 * still runs (without those columns) on other systems.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** USER_HZ, the unit of utime/stime in /proc/<pid>/stat (100 on virtually every Linux). */
function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/**
 * User + system CPU time of the process so far, in microseconds (resolution: one clock tick, 10 ms). With
 * `children`, also that of its children that have exited and been waited for (the bench's wrk runs).
 */
export function cpuMicros(pid: number | 'self', children = false): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may itself hold spaces.
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ticks = (f[11] ?? NaN) + (f[12] ?? NaN) + (children ? (f[13] ?? NaN) + (f[14] ?? NaN) : 0);
    return Number.isNaN(ticks) ? undefined : (ticks * 1e6) / ticksPerSecond();
  } catch {
    return undefined;
  }
}

/** CPU time of the whole machine so far, all cores, in microseconds: busy (not idle or waiting for I/O) and total. */
export function machineCpuMicros(): { busy: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    const idle = (f[3] ?? 0) + (f[4] ?? 0);
    return { busy: ((total - idle) * 1e6) / ticksPerSecond(), total: (total * 1e6) / ticksPerSecond() };
  } catch {
    return undefined;
  }
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Resident set size now, in MB. */
export function rssMb(pid: number): number | undefined {
  const kb = statusKb(pid, 'VmRSS');
  return kb === undefined ? undefined : kb / 1024;
}

/** The highest resident set size since the process started ("high water mark"), in MB. */
export function peakRssMb(pid: number): number | undefined {
  const kb = statusKb(pid, 'VmHWM');
  return kb === undefined ? undefined : kb / 1024;
}

/**
 * Sets the process's high water mark (VmHWM) back to its resident set size now, so that a later
 * peakRssMb() is the peak since this call (Linux: "5" to /proc/<pid>/clear_refs). False when
 * that cannot be done (another system, no permission): VmHWM then still counts from the start.
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Samples VmRSS every `everyMs` while load runs; `stop` returns the highest sample. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number | undefined } {
  let max = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== undefined && (max === undefined || now > max)) max = now;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const now = rssMb(pid);
      return now !== undefined && (max === undefined || now > max) ? now : max;
    },
  };
}

/**
 * One full, compacting garbage collection, for the two moments a thread knows it has just made
 * tens of megabytes of garbage and will not soon make more: the gateway's start-up
 * (startup-memory.ts) and the token-counting thread's loading of its tables (tokenizer-worker.ts).
 * An idle thread allocates too little for V8 ever to collect that garbage by itself, and without
 * compaction a collection keeps every page that still holds one live object.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** True when Node was started with a flag that matches (the user's flags are left as given). */
export function nodeFlagGiven(flag: RegExp): boolean {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((a) => flag.test(a));
}

/** Collects the whole heap of the calling thread, moving what lives onto as few pages as it fills. */
export function fullCollection(): void {
  const compacting = !nodeFlagGiven(/^--(no-)?compact[-_]on[-_]every[-_]full[-_]gc/);
  if (compacting) v8.setFlagsFromString('--compact-on-every-full-gc');
  try {
    collector()();
  } finally {
    if (compacting) v8.setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/** --expose-gc's function; without that flag, V8 hands it to a context made while the flag is on. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  v8.setFlagsFromString('--expose-gc');
  try {
    return runInNewContext('gc') as () => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

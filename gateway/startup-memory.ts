/**
 * What start-up leaves in memory, given back before the gateway listens (docs/performance.md,
 * "Idle memory"). Loading the server's modules, the catalogue and the route schemas allocates tens
 * of megabytes, most of it garbage at once; V8 grows its young generation while that goes on (to
 * 32 MB committed, from 2) and keeps it, and what outlived two scavenges stays in the old
 * generation until a full collection that an idle process never triggers. So an idle gateway
 * held about 125 MB, of which about 23 MB is live heap.
 *
 * `holdYoungGeneration()` (before the server's modules load) keeps the young generation at its
 * starting size; `releaseStartupMemory()` (once the server is ready, before it listens) lets it grow
 * again as it would, for load, and runs one full collection.
 *
 * Under load, `boundOldSpaceGrowth()` keeps old space near what is live: V8 by default lets it grow
 * to up to four times the live heap between two full collections when it judges collections
 * costly, and under the bench's load it grew to 56–106 MB around 25–30 MB live, the largest part of
 * the gateway's peak RSS beside the binary's own pages (docs/performance.md, "Where the targets
 * stand"). A flag the user gave Node for the young generation or for the heap's growth is left alone.
 */
import v8 from 'node:v8';
import { fullCollection, nodeFlagGiven } from './core/full-gc.js';

const GROWTH = '--semi-space-growth-factor';
/** V8's own default for the flag (v8/src/flags/flag-definitions.h). */
const V8_GROWTH = 2;

/** True when Node was started with a flag that sizes the young generation. */
function userSized(): boolean {
  return nodeFlagGiven(/^--(semi[-_]space[-_]growth[-_]factor|max[-_]semi[-_]space[-_]size)/);
}

let held = false;

/** Keeps the young generation at its starting size while start-up allocates. */
export function holdYoungGeneration(): void {
  if (held || userSized()) return;
  v8.setFlagsFromString(`${GROWTH}=1`);
  held = true;
}

/**
 * Lets the young generation grow again and collects start-up's garbage, once: a pause of tens of
 * milliseconds before the gateway listens, so no request waits for it. The collection compacts
 * (core/full-gc.ts): without that, old space stayed at 26–35 MB committed around 21 MB live, from
 * one start to the next.
 */
export function releaseStartupMemory(): void {
  fullCollection();
  // After the collection, which would otherwise grow the young generation by what it moves.
  if (held) v8.setFlagsFromString(`${GROWTH}=${V8_GROWTH}`);
  held = false;
  boundOldSpaceGrowth();
}

/**
 * How far old space may grow past what the last full collection left live before the next one:
 * 50 %, where V8 chooses between 10 % and 300 % by how fast it collects. V8 reads the flag at every
 * full collection, so setting it at run time takes effect (unlike the young generation's size).
 */
const OLD_SPACE_GROWTH_PERCENT = 50;

/** Bounds old space's growth between full collections (see above). */
export function boundOldSpaceGrowth(): void {
  if (nodeFlagGiven(/^--heap[-_]growing[-_]percent/)) return;
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_SPACE_GROWTH_PERCENT}`);
}

/**
 * The gateway's status, and pausing its model API (compose/pause.ts). The shell knows its own
 * address and version, so it passes what it reports (`shell`); this adds what the gateway counts.
 */
import type { Gateway } from '../compose/gateway.js';
import type { StatusView } from '../contract/admin/index.js';

/** The shell's status and the model requests refused since start for a missing or wrong key. */
export function status(g: Gateway, shell: () => StatusView): StatusView {
  return {
    ...shell(),
    unauthenticatedRequests: g.keys.failures.total,
    tokenCounts: { answered: g.tokenCounts.answered, refused: g.tokenCounts.refused },
  };
}

/** Pauses or resumes the model API; the status after the change. */
export function setPaused(g: Gateway, paused: boolean, shell: () => StatusView): StatusView {
  g.pause.set(paused);
  return status(g, shell);
}

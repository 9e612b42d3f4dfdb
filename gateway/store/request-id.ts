import { randomUUID } from 'node:crypto';

/**
 * A request's id: `req_` and 32 hex digits, the first 12 the time in milliseconds and the other 20
 * random (80 bits, from a random UUID's random digits). Ids made later sort later, so the ledger's
 * `request_id` index grows at its end, a page or two written per commit; with wholly random ids
 * every row landed on a leaf page of its own somewhere in the index, and at a million rows that
 * page was rarely in SQLite's cache: one read and one more page written to the WAL per request
 * (docs/performance.md, "The ledger's write cost").
 */
export function newRequestId(now: number = Date.now()): string {
  const u = randomUUID();
  // The UUID's digits 13 and 17 are its version and variant; these 20 come from elsewhere in it.
  return `req_${now.toString(16).padStart(12, '0')}${u.slice(0, 8)}${u.slice(24)}`;
}

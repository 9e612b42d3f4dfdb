/**
 * Links from the Overview into the usage log, in the log's own URL filter (pages/logs/filters.tsx
 * reads the same names): an exact span as `since` and `until` (epoch ms), the grouping's value under
 * the filter of the same name (`model`, `key`, `line`, `tool`, `project`, `session`), and `status`.
 */
import type { StatsBy } from '../../../gateway/contract/admin/index.js';

export interface LogLink {
  since: number;
  until: number;
  by?: StatsBy;
  /** The group's value; null (rows without one) cannot be filtered for, and narrows nothing. */
  group?: string | null | undefined;
  status?: 'error' | 'ok';
}

export function logLink(l: LogLink): string {
  const q = new URLSearchParams();
  if (l.by && typeof l.group === 'string') q.set(l.by, l.group);
  if (l.status) q.set('status', l.status);
  q.set('since', String(l.since));
  q.set('until', String(l.until));
  return `/logs?${q.toString()}`;
}

/**
 * What the Keys page shows beside each key: when it was last used and what it spent per day over a
 * recent period (GET /api/keys/usage). Computed in SQL: the days from the hourly rollup, the last
 * use from the newest row of the key's index (docs/admin-api.md).
 */
import { Type, type Static } from '@sinclair/typebox';

export const KeyUsageQuery = Type.Object({
  /** How many days, today included (default 30). */
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })),
  /** Minutes east of UTC where days start; the console sends its own. */
  tz: Type.Optional(Type.Integer({ minimum: -840, maximum: 840 })),
});
export type KeyUsageQuery = Static<typeof KeyUsageQuery>;

export const KeyUsageView = Type.Object({
  /** The key's name, as its log rows carry it. */
  name: Type.String(),
  /** Epoch ms of its newest request; null: never used. */
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()]),
  /** Requests and spend over the period. */
  requests: Type.Integer(),
  costMicro: Type.Integer(),
  /** Spend per day, oldest first, one entry per day of the period (today last). */
  dailyMicro: Type.Array(Type.Integer()),
});
export type KeyUsageView = Static<typeof KeyUsageView>;

export const KeyUsageList = Type.Object({
  /** Epoch ms where the first day starts, and the end of the period (now). */
  since: Type.Integer(),
  until: Type.Integer(),
  days: Type.Integer(),
  /** One per live key, in the order of GET /api/keys. */
  keys: Type.Array(KeyUsageView),
});
export type KeyUsageList = Static<typeof KeyUsageList>;

/** The one key the console's Playground sends with (POST /api/playground/key). */
export const PLAYGROUND_MADE_BY = 'playground';

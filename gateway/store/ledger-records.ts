/**
 * The rows of the ledger's tables as SQLite returns them, declared once as TypeBox schemas: the
 * statements of ledger.ts and its readers are typed by them (better-sqlite3's `prepare<Params,
 * Row>`), so no row is cast. The columns follow ledger-schema.ts, the usage buckets' columns the
 * bucket table (contract/usage-buckets.ts); test/store/ledger-records.test.ts holds each schema
 * equal to its table and checks rows the ledger wrote against it.
 *
 * Rows are not checked against the schemas when read: a ledger written before the CHECK
 * constraints may hold a REAL where an integer belongs (`tollgate doctor` names such rows), and
 * the log must still show them.
 */
import {
  Type,
  type Static,
  type TInteger,
  type TNull,
  type TObject,
  type TSchema,
  type TUnion,
} from '@sinclair/typebox';
import { BUCKET_KEYS, USAGE_BUCKETS, type BucketKey } from '../contract/usage-buckets.js';

const Int = Type.Integer();
const Text = Type.String();
const OrNull = <T extends TSchema>(t: T): TUnion<[T, TNull]> => Type.Union([t, Type.Null()]);
/** SQLite has no booleans: 1 or 0. */
const Flag = Type.Union([Type.Literal(0), Type.Literal(1)]);

type Buckets = typeof USAGE_BUCKETS;
const bucketColumns = Object.fromEntries(BUCKET_KEYS.map((k) => [USAGE_BUCKETS[k].column, Int])) as {
  [K in BucketKey as Buckets[K]['column']]: TInteger;
};

/** A settled request: one row of the usage log. */
export const RequestRecord = Type.Object({
  id: Int,
  request_id: Text,
  ts: Int,
  key_id: OrNull(Text),
  key_name: OrNull(Text),
  model: OrNull(Text),
  upstream_model: OrNull(Text),
  line: OrNull(Text),
  inbound_protocol: Text,
  upstream_protocol: OrNull(Text),
  stream: Flag,
  status: Int,
  error_code: OrNull(Text),
  error_message: OrNull(Text),
  ...bucketColumns,
  usage_estimated: Flag,
  cost_micro: Int,
  latency_ms: Int,
  ttfb_ms: OrNull(Int),
  notes: OrNull(Text),
  served_model: OrNull(Text),
  attempts: Int,
  uncharged_micro: Int,
  /** The unit prices the row was billed at, as JSON; null for rows older than the snapshot. */
  prices_json: OrNull(Text),
  multiplier_ppm: OrNull(Int),
  session: OrNull(Text),
  agent: OrNull(Text),
  tool: OrNull(Text),
  project: OrNull(Text),
  saved_micro: Int,
});
export type RequestRecord = Static<typeof RequestRecord>;

/** An admitted request not yet settled. */
export const PendingRecord = Type.Object({
  request_id: Text,
  ts: Int,
  key_id: OrNull(Text),
  key_name: OrNull(Text),
  model: OrNull(Text),
  inbound_protocol: Text,
  stream: Flag,
  held_micro: Int,
});
export type PendingRecord = Static<typeof PendingRecord>;

/** A top-up, or a signed adjustment with its note. */
export const WalletTxRecord = Type.Object({
  id: Int,
  ts: Int,
  kind: Type.Union([Type.Literal('topup'), Type.Literal('adjustment')]),
  amount_micro: Int,
  note: OrNull(Text),
});
export type WalletTxRecord = Static<typeof WalletTxRecord>;

/** What each key has spent, and on how many requests. */
export const KeyUsageRecord = Type.Object({ key_id: Text, used_micro: Int, requests: Int });
export type KeyUsageRecord = Static<typeof KeyUsageRecord>;

/** The one wallet row. */
export const WalletRecord = Type.Object({ id: Int, balance_micro: Int });
export type WalletRecord = Static<typeof WalletRecord>;

/** The tables and their row schemas, for the test that holds them equal. */
export const LEDGER_RECORDS: Record<string, TObject> = {
  requests: RequestRecord,
  pending: PendingRecord,
  wallet_tx: WalletTxRecord,
  key_usage: KeyUsageRecord,
  wallet: WalletRecord,
};

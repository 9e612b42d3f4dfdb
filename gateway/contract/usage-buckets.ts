/**
 * The kinds of token a request is counted in, one row each: the one table that canonical usage,
 * the catalogue's price kinds, billing, the cost breakdown, the ledger, the admin API's log
 * entries, the CSV export, the CLI and the console's charge all read.
 *
 * Each token is counted in exactly one bucket, because each bucket has its own price
 * (core/usage.ts says how each wire format's usage is split into them).
 *
 * Rows are in the order a bill reads: the prompt's kinds, then the output, then the inputs a vendor
 * may price apart (the cost formula and the console's charge list them so). `listed` is where the
 * figure comes where figures are listed as fields or columns: a log entry's usage, the CSV, the
 * CLI's log table and the price kinds (output follows input there).
 *
 * A new kind of token is a row here plus its ledger column (a step in store/ledger-schema.ts's
 * migrate); the wire formats that report it then set it in their usage.ts.
 * test/contract/usage-buckets.test.ts adds a row to a copy of the gateway and follows it through
 * pricing, the breakdown, the ledger, the views and the CSV.
 */

/** The kind of token a bucket is, for figures that do not tell buckets apart. */
export type TokenFamily = 'input' | 'cacheRead' | 'cacheWrite' | 'output';

export interface BucketRow {
  /** The column of the ledger's `requests` table that holds it. */
  readonly column: string;
  /** The price kind it is billed by; null: counted, never billed. */
  readonly price: string | null;
  /** The price kind it is billed at when the model has no price of its own kind; null: every model has one. */
  readonly fallback: string | null;
  /**
   * What the tokens are where buckets are summed: the prompt is every family but `output`, one
   * cache-write figure is the `cacheWrite` family (for formats that report a single figure).
   */
  readonly family: TokenFamily;
  /** Its words in the cost formula: `1200 input × $3/M`. */
  readonly term: string;
  /** Its label in the console's charge table. */
  readonly title: string;
  /** Its place where figures are listed as fields or columns (0 first). */
  readonly listed: number;
  /** Its column in the CSV export; null: not exported. */
  readonly csv: string | null;
  /** Its column header in `tollgate logs`; null: not shown. */
  readonly cli: string | null;
}

export const USAGE_BUCKETS = {
  /** Prompt tokens neither read from nor written to a cache, and not priced apart. */
  inputTokens: {
    column: 'input_tokens',
    price: 'input',
    fallback: null,
    family: 'input',
    term: 'input',
    title: 'Input (uncached)',
    listed: 0,
    csv: 'input_tokens',
    cli: 'IN',
  },
  cacheReadTokens: {
    column: 'cache_read_tokens',
    price: 'cacheRead',
    fallback: null,
    family: 'cacheRead',
    term: 'cache read',
    title: 'Cache read',
    listed: 2,
    csv: 'cache_read_tokens',
    cli: 'CACHE R',
  },
  /** Cache writes kept 5 minutes, and every write an upstream does not qualify. */
  cacheWriteTokens: {
    column: 'cache_write_tokens',
    price: 'cacheWrite',
    fallback: null,
    family: 'cacheWrite',
    term: 'cache write',
    title: 'Cache write',
    listed: 3,
    csv: 'cache_write_tokens',
    cli: 'CACHE W',
  },
  /** Cache writes kept an hour (Anthropic: 2× input); without a price of their own, billed as 5-minute writes. */
  cacheWrite1hTokens: {
    column: 'cache_write_1h_tokens',
    price: 'cacheWrite1h',
    fallback: 'cacheWrite',
    family: 'cacheWrite',
    term: '1-hour cache write',
    title: 'Cache write (1 hour)',
    listed: 4,
    csv: 'cache_write_1h_tokens',
    cli: 'CACHE W 1H',
  },
  outputTokens: {
    column: 'output_tokens',
    price: 'output',
    fallback: null,
    family: 'output',
    term: 'output',
    title: 'Output',
    listed: 1,
    csv: 'output_tokens',
    cli: 'OUT',
  },
  /** A part of `outputTokens`, shown for information: never billed twice. */
  reasoningTokens: {
    column: 'reasoning_tokens',
    price: null,
    fallback: null,
    family: 'output',
    term: 'reasoning',
    title: 'of which reasoning',
    listed: 5,
    csv: 'reasoning_tokens',
    cli: null,
  },
  /** Only where the upstream reports audio apart; otherwise it stays in `inputTokens`. */
  audioInputTokens: {
    column: 'audio_input_tokens',
    price: 'audioInput',
    fallback: 'input',
    family: 'input',
    term: 'audio input',
    title: 'Audio input',
    listed: 6,
    csv: null,
    cli: null,
  },
  /** Only where the upstream reports images apart; otherwise they stay in `inputTokens`. */
  imageInputTokens: {
    column: 'image_input_tokens',
    price: 'imageInput',
    fallback: 'input',
    family: 'input',
    term: 'image input',
    title: 'Image input',
    listed: 7,
    csv: null,
    cli: null,
  },
} as const satisfies Record<string, BucketRow>;

type Buckets = typeof USAGE_BUCKETS;
/** A usage bucket: `inputTokens`, `cacheReadTokens`, … */
export type BucketKey = keyof Buckets;
/** One figure per bucket. */
export type BucketCounts = { [K in BucketKey]: number };
/** The buckets that are billed (all but the informational ones). */
export type BilledBucket = { [K in BucketKey]: Buckets[K]['price'] extends null ? never : K }[BucketKey];
/** A price kind: `input`, `output`, `cacheRead`, … (micro-USD per million tokens in a price record). */
export type PriceKey = NonNullable<Buckets[BucketKey]['price']>;
/** The price kinds every model has: those with no fallback. */
export type RequiredPriceKey = {
  [K in BilledBucket]: Buckets[K]['fallback'] extends null ? Buckets[K]['price'] : never;
}[BilledBucket];
/** Catalogue prices in micro-USD per million tokens: the required kinds always, the others where priced apart. */
export type Prices = { [K in RequiredPriceKey]: number } & { [K in Exclude<PriceKey, RequiredPriceKey>]?: number };

// A fallback names a kind every model has, so a bucket's price is never missing.
type Holds<T extends true> = T;
export type FallbacksAreRequired = Holds<Buckets[BucketKey]['fallback'] extends RequiredPriceKey | null ? true : false>;

/** The buckets in bill order (the table's). */
export const BUCKET_KEYS = Object.keys(USAGE_BUCKETS) as BucketKey[];

/** The buckets in the order figures are listed as fields and columns (`listed`). */
export const LISTED_BUCKETS: readonly BucketKey[] = [...BUCKET_KEYS].sort(
  (a, b) => USAGE_BUCKETS[a].listed - USAGE_BUCKETS[b].listed,
);

/** The billed buckets, in bill order: the terms of a cost. */
export const BILLED_BUCKETS = BUCKET_KEYS.filter((k): k is BilledBucket => USAGE_BUCKETS[k].price !== null);

/** The price kinds, in listed order. */
export const PRICE_KEYS: readonly PriceKey[] = LISTED_BUCKETS.flatMap((k) => {
  const price: PriceKey | null = USAGE_BUCKETS[k].price;
  return price === null ? [] : [price];
});

/** The kinds every model has (the others only where the vendor prices that input apart). */
export const REQUIRED_PRICES: readonly RequiredPriceKey[] = PRICE_KEYS.filter((p): p is RequiredPriceKey =>
  BILLED_BUCKETS.some((k) => USAGE_BUCKETS[k].price === p && USAGE_BUCKETS[k].fallback === null),
);

/** One figure per bucket, from `figure`, its keys in `order` (which JSON keeps). */
export function bucketCounts(
  figure: (k: BucketKey) => number,
  order: readonly BucketKey[] = BUCKET_KEYS,
): BucketCounts {
  // Assigned one by one onto a plain object (not Object.fromEntries, whose objects V8 keeps as
  // slow dictionaries): usage is built and read on every request.
  const counts: Partial<BucketCounts> = {};
  for (const k of order) counts[k] = figure(k);
  return counts as BucketCounts;
}

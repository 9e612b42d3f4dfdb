/**
 * How a ledger row's cost came about: each kind of token times the unit price the row was billed
 * at, summed, times the group's multiplier, rounded up to the micro-USD. Read from the price
 * snapshot the row keeps (store/ledger.ts), so it explains the row for ever, whatever the
 * catalogue says today. The sum follows billing/pricing.ts's costMicro term by term;
 * test/core/cost-breakdown.test.ts checks the two agree.
 */
import type { Prices } from '../contract/prices.js';
import type { Usage } from './usage.js';

/** The unit prices and the multiplier one row was billed at. */
export interface PriceSnapshot {
  /** micro-USD per million tokens, per price kind. */
  prices: Prices;
  /** The key's group multiplier, in parts per million (1.5 → 1_500_000). */
  multiplierPpm: number;
}

export interface CostTerm {
  /** The usage bucket (`inputTokens`, …) and the price kind it was billed by (`input`, …). */
  tokens: number;
  usage: keyof Usage;
  price: keyof Prices;
  /** micro-USD per million tokens. */
  priceMicroPerMillion: number;
  /** tokens × price, exact, in USD as decimal text. */
  usd: string;
}

export interface CostBreakdown extends PriceSnapshot {
  /** One term per bucket that has tokens. */
  terms: CostTerm[];
  /** Σ terms, exact, USD decimal text. */
  subtotalUsd: string;
  /** The multiplier as decimal text ("1", "1.5"). */
  multiplier: string;
  /** ceil(subtotal × multiplier) in micro-USD: what the row was charged. */
  costMicro: number;
  /** The sum written out, e.g. `1200 input × $3/M + 350 output × $15/M = $0.00885 × 1.5 = $0.013275`. */
  formula: string;
}

/** Buckets in billing order, each with the price kind it is billed by and the kind it falls back to. */
const BUCKETS: { usage: keyof Usage; price: keyof Prices; fallback?: keyof Prices; label: string }[] = [
  { usage: 'inputTokens', price: 'input', label: 'input' },
  { usage: 'cacheReadTokens', price: 'cacheRead', label: 'cache read' },
  { usage: 'cacheWriteTokens', price: 'cacheWrite', label: 'cache write' },
  { usage: 'cacheWrite1hTokens', price: 'cacheWrite1h', fallback: 'cacheWrite', label: '1-hour cache write' },
  { usage: 'outputTokens', price: 'output', label: 'output' },
  { usage: 'audioInputTokens', price: 'audioInput', fallback: 'input', label: 'audio input' },
  { usage: 'imageInputTokens', price: 'imageInput', fallback: 'input', label: 'image input' },
];

const MILLION = 1_000_000n;

/** `n / 10^scale` as exact decimal text without trailing zeros: decimal(1_500_000n, 6) → "1.5". */
export function decimal(n: bigint, scale: number): string {
  const negative = n < 0n;
  const digits = (negative ? -n : n).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const frac = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

export function costBreakdown(usage: Usage, snapshot: PriceSnapshot): CostBreakdown {
  const { prices, multiplierPpm } = snapshot;
  const terms: CostTerm[] = [];
  const words: string[] = [];
  // Sums are kept in micro-USD × 10^6 (price per million × tokens), so every step is exact.
  let sum = 0n;
  for (const b of BUCKETS) {
    const tokens = usage[b.usage];
    if (!tokens) continue;
    const price = prices[b.price] ?? (b.fallback ? prices[b.fallback] : undefined) ?? 0;
    const product = BigInt(tokens) * BigInt(price);
    sum += product;
    const kind = prices[b.price] === undefined && b.fallback ? b.fallback : b.price;
    terms.push({ tokens, usage: b.usage, price: kind, priceMicroPerMillion: price, usd: decimal(product, 12) });
    words.push(`${tokens} ${b.label} × $${decimal(BigInt(price), 6)}/M`);
  }
  const scaled = sum * BigInt(multiplierPpm);
  const unit = MILLION * MILLION;
  const costMicro = Number((scaled + unit - 1n) / unit);
  const subtotalUsd = decimal(sum, 12);
  const multiplier = decimal(BigInt(multiplierPpm), 6);
  let formula = words.length === 0 ? 'no tokens billed' : `${words.join(' + ')} = $${subtotalUsd}`;
  if (words.length > 0 && multiplierPpm !== 1_000_000) formula += ` × ${multiplier} = $${decimal(scaled, 18)}`;
  const exact = scaled % unit === 0n;
  if (!exact) formula += ` → $${decimal(BigInt(costMicro), 6)} (rounded up to the micro-USD)`;
  return { prices, multiplierPpm, terms, subtotalUsd, multiplier, costMicro, formula };
}

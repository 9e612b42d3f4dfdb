import { type Command, InvalidArgumentError } from 'commander';
import type { PricesBody } from '../contract/admin/index.js';
import { PRICE_KEYS, type PriceKey } from '../contract/prices.js';
import { amount } from './args.js';
import { CliError } from './client.js';

/** `cacheRead` → `cache-read`: the flag of each price kind. */
export const priceFlag = (k: PriceKey): string => k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const WHAT: Partial<Record<PriceKey, string>> = {
  input: 'input (uncached prompt) tokens',
  output: 'output tokens',
  cacheRead: 'prompt tokens read from the cache (default: the input price)',
  cacheWrite: 'prompt tokens written to the cache (default: the input price)',
  audioInput: 'audio input tokens, where priced apart from text',
  imageInput: 'image input tokens, where priced apart from text',
};

/** `--input USD`, `--output USD`, … one per price kind, in USD per million tokens, read exactly as decimals. */
export function priceOptions(cmd: Command): Command {
  for (const k of PRICE_KEYS)
    cmd.option(`--${priceFlag(k)} <usd>`, `USD per million ${WHAT[k] ?? `${k} tokens`}`, amount);
  return cmd;
}

/** The prices the flags gave (micro-USD per million tokens); undefined when none. */
export function pricesFrom(o: object): PricesBody | undefined {
  const given = Object.fromEntries(
    PRICE_KEYS.filter((k) => (o as Record<string, unknown>)[k] !== undefined).map((k) => [
      k,
      (o as Record<string, number>)[k],
    ]),
  );
  return Object.keys(given).length > 0 ? (given as PricesBody) : undefined;
}

/** `--free` and prices, or neither: what a line or an import adds new models with. */
export function newModelPricing(o: { free?: boolean } & object): { free: true } | { prices: PricesBody } | undefined {
  const prices = pricesFrom(o);
  if (o.free && prices) throw new CliError('Give prices (--input, --output …) or --free, not both.');
  if (o.free) return { free: true };
  if (prices) {
    if (prices.input === undefined || prices.output === undefined)
      throw new CliError('New models need --input and --output (USD per million tokens), or --free.');
    return { prices };
  }
  return undefined;
}

/** Price kinds by flag name (`cache-read`), for --unset. */
export function kinds(v: string): PriceKey[] {
  return v.split(',').map((s) => {
    const k = PRICE_KEYS.find((x) => priceFlag(x) === s.trim() || x === s.trim());
    if (!k) throw new InvalidArgumentError(`"${s}" is not a price kind (${PRICE_KEYS.map(priceFlag).join(', ')}).`);
    return k;
  });
}

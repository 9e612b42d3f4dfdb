/**
 * The kinds of token a model is priced by, declared once: the preset loader, the user's catalogue
 * entries, the admin API's schemas (which run in a browser too), price imports and the charge
 * breakdown all follow this list. Prices are integer micro-USD per million tokens.
 */
export const PRICE_KEYS = [
  'input',
  'output',
  'cacheRead',
  'cacheWrite',
  'cacheWrite1h',
  'audioInput',
  'imageInput',
] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];
/** Every model has these; the others only where the vendor prices that input apart (else it is billed as `input`). */
export const REQUIRED_PRICES = ['input', 'output', 'cacheRead', 'cacheWrite'] as const;

/** Catalogue prices in micro-USD per million tokens. */
export interface Prices {
  input: number;
  output: number;
  cacheRead: number;
  /** Cache writes kept 5 minutes, and every write an upstream does not qualify. */
  cacheWrite: number;
  /** Cache writes kept an hour (Anthropic: 2× input); without it they are billed at `cacheWrite`. */
  cacheWrite1h?: number;
  /** Only where the vendor prices audio input apart from text; otherwise audio is billed as input. */
  audioInput?: number;
  imageInput?: number;
}

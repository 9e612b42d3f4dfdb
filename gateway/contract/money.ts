/**
 * Money as text, one rule for every place a person reads or types it: the console, the tray and its
 * notifications, the CLI's tables. Amounts are integer micro-USD (1 USD = 1,000,000) and become
 * text here by integer arithmetic only, never through floating point:
 *
 * - a balance, a top-up or a total: cents, thousands separated — `usd()`, `$1,234.50`;
 * - what one request cost: all six decimals, so small costs compare at a glance — `usdCost()`,
 *   `$0.000043`;
 * - a price per million tokens, as price lists write it (and a chart's scale, which must keep the
 *   digits its ticks have) — `usdPrice()`, `$2.50`, `$0.075`;
 * - an exact amount in plain digits, as the admin API's messages and the CLI's `--json` give it
 *   (and an edit field starts from) — `usdExact()`, `$1234.50`, `$0.000123`.
 *
 * `parseUsd()` reads what a person types back into micro-USD, exactly.
 */
export const MICRO_PER_USD = 1_000_000;

const grouped = (whole: number): string => String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const sign = (micro: number): string => (micro < 0 ? '-' : '');

/** A balance, top-up or total: $1,234.50, -$2.50; rounded to the cent, half away from zero. */
export function usd(micro: number): string {
  const cents = Math.floor((Math.abs(micro) + 5_000) / 10_000);
  return `${cents === 0 ? '' : sign(micro)}$${grouped(Math.floor(cents / 100))}.${String(cents % 100).padStart(2, '0')}`;
}

/** What one request cost, to the micro-dollar: $0.000043, $1,234.500000. */
export function usdCost(micro: number): string {
  const abs = Math.abs(micro);
  const frac = String(abs % MICRO_PER_USD).padStart(6, '0');
  return `${sign(micro)}$${grouped(Math.floor(abs / MICRO_PER_USD))}.${frac}`;
}

/** The decimals of an amount: at least two, more only where the amount has them (0.000123). */
function exactParts(micro: number): { whole: number; frac: string } {
  const abs = Math.abs(micro);
  const frac = String(abs % MICRO_PER_USD)
    .padStart(6, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return { whole: Math.floor(abs / MICRO_PER_USD), frac };
}

/** A price in micro-USD per million tokens, as dollars per million: $2.50, $0.075, $1,000.00 (or a chart's tick). */
export function usdPrice(microPerMillion: number): string {
  const { whole, frac } = exactParts(microPerMillion);
  return `${sign(microPerMillion)}$${grouped(whole)}.${frac}`;
}

/** An exact amount in plain digits: $1234.50, $0.000123, -$5.00 (the admin API's messages, --json). */
export function usdExact(micro: number): string {
  return `${sign(micro)}$${usdDigits(micro).replace(/^-/, '')}`;
}

/** usdExact without the dollar sign, for JSON fields and edit fields: 1234.50, 0.000123, -5.00. */
export function usdDigits(micro: number): string {
  const { whole, frac } = exactParts(micro);
  return `${sign(micro)}${whole}.${frac}`;
}

const AMOUNT = /^([-+−])?\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?$/;
const EXAMPLES = 'a number with at most 6 decimals, e.g. 10, 0.25 or 1,250.50';

/**
 * An amount a person typed, in integer micro-USD, exactly: "10", "2.5", "$0.75", "1,234.50" (and
 * "-2.50" where `signed`). A dollar sign and thousands separators are allowed; more than six
 * decimals (below a micro-dollar), a sign where none is allowed, or anything else throws a
 * RangeError that says what is wrong.
 */
export function parseUsd(text: string, opts: { signed?: boolean } = {}): number {
  const m = AMOUNT.exec(text.trim());
  const refuse = (why: string): RangeError => new RangeError(`"${text}" is not an amount in USD${why}`);
  if (!m) throw refuse(` (${EXAMPLES})`);
  const [, signChar, whole, frac = ''] = m;
  if (frac.length > 6) throw refuse(': an amount has at most 6 decimals ($0.000001 is the smallest)');
  const negative = signChar === '-' || signChar === '−';
  if (signChar !== undefined && !opts.signed) throw refuse(': no sign here, the amount is 0 or more');
  const micro = Number(whole!.replaceAll(',', '')) * MICRO_PER_USD + Number(frac.padEnd(6, '0'));
  if (!Number.isSafeInteger(micro)) throw new RangeError(`"${text}" is too large`);
  return negative && micro !== 0 ? -micro : micro;
}

/** parseUsd, or undefined for text it refuses: for a form that says in its own words what it wants. */
export function tryParseUsd(text: string, opts: { signed?: boolean } = {}): number | undefined {
  try {
    return parseUsd(text, opts);
  } catch {
    return undefined;
  }
}

/** The wallet: its balance and totals, top-ups, signed adjustments, and its transactions. */
import type { Gateway } from '../compose/gateway.js';
import { usdExact } from '../contract/money.js';
import { AdminError, type RouteInput, type WalletTransactionView, type WalletView } from '../contract/admin/index.js';

export function wallet(g: Gateway): WalletView {
  const balanceMicro = g.ledger.balanceMicro();
  const topupsMicro = g.ledger.topupsMicro();
  const adjustmentsMicro = g.ledger.adjustmentsMicro();
  return {
    balanceMicro,
    heldMicro: g.billing.reservations.heldMicro(),
    topupsMicro,
    adjustmentsMicro,
    spentMicro: topupsMicro + adjustmentsMicro - balanceMicro,
  };
}

/** A signed correction with its reason; one that would take the balance below zero is refused. */
export function adjust(g: Gateway, amountMicro: number, note: string): WalletView {
  if (amountMicro === 0) throw new AdminError(400, 'invalid_request', 'An adjustment must not be zero.');
  if (note.trim() === '') throw new AdminError(400, 'invalid_request', 'An adjustment needs a note saying why.');
  const balance = g.ledger.balanceMicro();
  if (balance + amountMicro < 0) {
    throw new AdminError(
      400,
      'invalid_request',
      `The balance is ${usdExact(balance)}; an adjustment of ${usdExact(amountMicro)} would take it below zero.`,
    );
  }
  checkCeiling(g, amountMicro);
  g.ledger.adjust(amountMicro, note.trim());
  return wallet(g);
}

export function topup(g: Gateway, amountMicro: number, note?: string): WalletView {
  checkCeiling(g, amountMicro);
  g.ledger.topup(amountMicro, note ?? null);
  return wallet(g);
}

/** The wallet's transactions, newest first, a page at a time. */
export function walletTransactions(
  g: Gateway,
  page: RouteInput<'listWalletTransactions'>['query'],
): WalletTransactionView[] {
  return g.ledger.reports.walletTransactions({ limit: page.limit, beforeId: page.before });
}

/** The most a wallet holds: a billion dollars, far below where integer micro-dollars stop being exact (2^53). */
export const MAX_BALANCE_MICRO = 1_000_000_000_000_000;

/**
 * Refuses a top-up or adjustment that would take the balance past MAX_BALANCE_MICRO, or the
 * wallet's running totals past exact integers: the sums would stop being exact, and SQLite would
 * store them as floating point.
 */
function checkCeiling(g: Gateway, amountMicro: number): void {
  const balance = g.ledger.balanceMicro();
  const totals = Math.abs(g.ledger.topupsMicro()) + Math.abs(g.ledger.adjustmentsMicro()) + Math.abs(amountMicro);
  if (balance + amountMicro > MAX_BALANCE_MICRO || !Number.isSafeInteger(totals)) {
    throw new AdminError(
      400,
      'amount_too_large',
      `The balance is ${usdExact(balance)}; with ${usdExact(amountMicro)} more it would pass the wallet's limit of ${usdExact(MAX_BALANCE_MICRO)}.`,
    );
  }
}

import { GatewayError } from '../core/errors.js';
import { usdExact } from '../contract/money.js';

export interface Reservation {
  readonly keyId: string;
  readonly amountMicro: number;
  released: boolean;
}

export interface ReserveInput {
  keyId: string;
  keyName: string;
  amountMicro: number;
  balanceMicro: number;
  /** null = the key has no quota. */
  quotaMicro: number | null;
  keyUsedMicro: number;
}

/**
 * Money held for requests in flight. A request reserves its worst-case cost before it is
 * forwarded and releases the hold when it is settled, so concurrent requests cannot together
 * spend more than the wallet holds. Held in memory only: a crash drops holds, never charges.
 * Reserve and release are synchronous, so on Node's single thread the check-and-hold is atomic.
 */
export class Reservations {
  private walletHeld = 0;
  private readonly keyHeld = new Map<string, number>();

  heldMicro(): number {
    return this.walletHeld;
  }

  keyHeldMicro(keyId: string): number {
    return this.keyHeld.get(keyId) ?? 0;
  }

  /** What a new reservation may take: the wallet's free balance, or the key's free quota when that is less. */
  freeMicro(input: Omit<ReserveInput, 'amountMicro' | 'keyName'>): number {
    const walletFree = input.balanceMicro - this.walletHeld;
    if (input.quotaMicro === null) return walletFree;
    return Math.min(walletFree, input.quotaMicro - input.keyUsedMicro - this.keyHeldMicro(input.keyId));
  }

  reserve(input: ReserveInput): Reservation {
    const walletFree = input.balanceMicro - this.walletHeld;
    if (input.amountMicro > walletFree) {
      const held = this.walletHeld > 0 ? ` (${usdExact(this.walletHeld)} of it is held for requests in flight)` : '';
      throw new GatewayError(
        'insufficient_funds',
        `Insufficient balance: the wallet has ${usdExact(input.balanceMicro)}${held}, and this request needs up to ${usdExact(input.amountMicro)}. ` +
          'Top up in the console or with "tollgate wallet topup USD", or lower max_tokens.',
        { code: 'insufficient_balance' },
      );
    }
    if (input.quotaMicro !== null) {
      const keyHeld = this.keyHeldMicro(input.keyId);
      const left = input.quotaMicro - input.keyUsedMicro - keyHeld;
      if (input.amountMicro > left) {
        throw new GatewayError(
          'insufficient_funds',
          `Key quota reached: the key "${input.keyName}" has used ${usdExact(input.keyUsedMicro)} of its ${usdExact(input.quotaMicro)} quota` +
            `${keyHeld > 0 ? ` with ${usdExact(keyHeld)} held for requests in flight` : ''}, ${usdExact(Math.max(left, 0))} left, ` +
            `and this request needs up to ${usdExact(input.amountMicro)}. Raise the key's quota or use another key.`,
          { code: 'key_quota_exceeded' },
        );
      }
    }
    this.walletHeld += input.amountMicro;
    this.keyHeld.set(input.keyId, this.keyHeldMicro(input.keyId) + input.amountMicro);
    return { keyId: input.keyId, amountMicro: input.amountMicro, released: false };
  }

  release(r: Reservation): void {
    if (r.released) return;
    r.released = true;
    this.walletHeld -= r.amountMicro;
    const left = this.keyHeldMicro(r.keyId) - r.amountMicro;
    if (left === 0) this.keyHeld.delete(r.keyId);
    else this.keyHeld.set(r.keyId, left);
  }
}

import { hash, randomBytes } from 'node:crypto';

/** `sk-` + 48 base62 characters: about 285 bits of randomness. */
export const SECRET_PREFIX = 'sk-';
const BODY_LENGTH = 48;
export const SECRET_LENGTH = SECRET_PREFIX.length + BODY_LENGTH;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function generateSecret(): string {
  let out = SECRET_PREFIX;
  while (out.length < SECRET_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: rejecting bytes at or above it keeps every character equally likely.
      if (byte < 248 && out.length < SECRET_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

/**
 * Keys are stored as SHA-256 hashes. A slow password hash buys nothing for 285-bit random
 * secrets, and a fast one keeps authentication off the request's critical path. Every model
 * request hashes its key once: Node's one-shot `hash` makes no Hash object (about 1 µs here
 * against 2.8 µs for createHash, update and digest; docs/performance.md). No cache of presented
 * secrets: the gateway keeps no plaintext key in memory longer than the request that sent it.
 */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export function lastFour(secret: string): string {
  return secret.slice(-4);
}

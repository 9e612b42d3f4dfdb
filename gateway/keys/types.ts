export type KeyState = 'enabled' | 'disabled' | 'deleted';

/** A key as stored in config: the secret itself is never kept, only its hash and last four characters. */
export interface KeyRecord {
  id: string;
  name: string;
  hash: string;
  last4: string;
  group: string;
  /** Spending cap for this key in micro-USD; null = no cap. */
  quotaMicro: number | null;
  /** ISO time; null = never expires. */
  expiresAt: string | null;
  state: KeyState;
  createdAt: string;
  /** Requests per minute allowed for this key; null or absent = unlimited. */
  rpm?: number | null;
  /** Requests in flight allowed for this key; null or absent = unlimited. */
  maxConcurrent?: number | null;
}

/**
 * Upstream credentials, one per line, in the OS keychain (service `Tollgate`, account = line id).
 * Config holds only a reference to them; this module is the only code that touches the keychain.
 * It never logs, and no error it throws carries a secret.
 */
import { randomBytes } from 'node:crypto';
import type { AsyncEntry } from '@napi-rs/keyring';

export interface SecretStore {
  /** The line's credential, or undefined if none is stored. */
  get(lineId: string): Promise<string | undefined>;
  /** Stores or replaces the line's credential. */
  set(lineId: string, secret: string): Promise<void>;
  /** Removes the line's credential; removing a missing one is not an error. */
  delete(lineId: string): Promise<void>;
  readonly kind: 'keychain' | 'memory';
}

export const KEYCHAIN_SERVICE = 'Tollgate';

export type SecretOperation = 'get' | 'set' | 'delete';

/** The keychain failed or is unreachable. The message names the line, never the secret. */
export class SecretStoreError extends Error {
  override readonly name = 'SecretStoreError';
  constructor(
    readonly operation: SecretOperation,
    readonly lineId: string,
    message: string,
  ) {
    super(message);
  }
}

export interface KeychainOptions {
  /**
   * How long one keychain call may take. A Secret Service that waits on an unlock prompt nobody
   * can answer (a headless session) would otherwise hold the request that asked for the key forever.
   */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const CAUSE_MAX = 300;

type Keyring = typeof import('@napi-rs/keyring');
let keyring: Promise<Keyring> | undefined;

/**
 * Loaded on first use, so that importing this module (for MemorySecretStore or the types) works on
 * a platform without a prebuilt binding, and keychainAvailable() can answer false there.
 */
function loadKeyring(): Promise<Keyring> {
  keyring ??= import('@napi-rs/keyring');
  return keyring;
}

/**
 * On Linux, @napi-rs/keyring silently falls back from the Secret Service to the kernel keyutils
 * keyring, which lives in memory and is gone after a reboot: a credential "stored" there would
 * vanish without a word. Pin the Secret Service so a machine without one fails loudly and the user
 * is pointed to --api-key-env instead. The option is ignored on macOS and Windows.
 * https://github.com/Brooooooklyn/keyring-node#linux-backend-selection
 */
const ENTRY_OPTIONS = { linux: { store: 'secret-service' } } as const;

const VERBS: Record<SecretOperation, string> = { get: 'read', set: 'store', delete: 'remove' };

function redact(text: string, secret: string | undefined): string {
  let out = text;
  if (secret) {
    // The plain form, and the escaped form a Rust `{:?}` or JSON rendering would print.
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) out = out.split(form).join('[redacted]');
  }
  return out.length > CAUSE_MAX ? `${out.slice(0, CAUSE_MAX)}…` : out;
}

function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}

function checkLineId(lineId: string): void {
  if (typeof lineId !== 'string' || lineId.length === 0) throw new TypeError('A line id must be a non-empty string.');
}

class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain' as const;

  constructor(
    private readonly service: string,
    private readonly timeoutMs: number,
  ) {}

  async get(lineId: string): Promise<string | undefined> {
    checkLineId(lineId);
    // keyring maps "no such item" to null; every other failure rejects.
    const value = await this.run('get', lineId, undefined, (e) => e.getPassword());
    return value ?? undefined;
  }

  async set(lineId: string, secret: string): Promise<void> {
    checkLineId(lineId);
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new TypeError(
        `The credential for line "${lineId}" is empty; delete the entry instead of storing an empty one.`,
      );
    }
    await this.run('set', lineId, secret, (e) => e.setPassword(secret));
  }

  async delete(lineId: string): Promise<void> {
    checkLineId(lineId);
    // Resolves false when there was nothing to delete: that is the state we wanted.
    await this.run('delete', lineId, undefined, (e) => e.deleteCredential());
  }

  private async run<T>(
    op: SecretOperation,
    lineId: string,
    secret: string | undefined,
    call: (entry: AsyncEntry) => Promise<T>,
  ): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const { AsyncEntry } = await loadKeyring();
      // The constructor already talks to D-Bus on Linux and throws when no Secret Service answers.
      const entry = new AsyncEntry(this.service, lineId, ENTRY_OPTIONS);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${this.timeoutMs} ms (is the keychain locked?)`)),
          this.timeoutMs,
        );
        timer.unref();
      });
      return await Promise.race([call(entry), timeout]);
    } catch (err) {
      // A new error without `cause`: util.inspect prints the cause chain, and the native message is
      // not ours to trust with the secret.
      throw new SecretStoreError(
        op,
        lineId,
        `The OS keychain could not ${VERBS[op]} the credential of line "${lineId}" (service ${this.service}): ${redact(describe(err), secret)}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The OS keychain: macOS Keychain, Windows Credential Manager, or a Linux Secret Service. */
export function openKeychain(service = KEYCHAIN_SERVICE, options: KeychainOptions = {}): SecretStore {
  return new KeychainSecretStore(service, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
}

/**
 * True if the keychain can really hold a credential here: a probe entry is written, read back and
 * deleted. False on a headless machine without a Secret Service, or with a locked one.
 */
export async function keychainAvailable(service = KEYCHAIN_SERVICE, options: KeychainOptions = {}): Promise<boolean> {
  const store = openKeychain(service, { timeoutMs: options.timeoutMs ?? 5_000 });
  const probeId = `tollgate-probe-${randomBytes(6).toString('hex')}`;
  const probe = randomBytes(12).toString('base64url');
  try {
    await store.set(probeId, probe);
    const back = await store.get(probeId);
    await store.delete(probeId);
    return back === probe && (await store.get(probeId)) === undefined;
  } catch {
    await store.delete(probeId).catch(() => undefined);
    return false;
  }
}

/** Credentials in process memory, for tests of the modules that use a SecretStore. */
export class MemorySecretStore implements SecretStore {
  readonly kind = 'memory' as const;
  private readonly entries = new Map<string, string>();

  constructor(initial: Record<string, string> = {}) {
    for (const [lineId, secret] of Object.entries(initial)) this.entries.set(lineId, secret);
  }

  async get(lineId: string): Promise<string | undefined> {
    checkLineId(lineId);
    return this.entries.get(lineId);
  }

  async set(lineId: string, secret: string): Promise<void> {
    checkLineId(lineId);
    if (typeof secret !== 'string' || secret.length === 0) {
      throw new TypeError(
        `The credential for line "${lineId}" is empty; delete the entry instead of storing an empty one.`,
      );
    }
    this.entries.set(lineId, secret);
  }

  async delete(lineId: string): Promise<void> {
    checkLineId(lineId);
    this.entries.delete(lineId);
  }

  /** The line ids that hold a credential, so a test can check nothing was left behind. */
  lineIds(): string[] {
    return [...this.entries.keys()].sort();
  }
}

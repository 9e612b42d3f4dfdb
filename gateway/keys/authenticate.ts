import { GatewayError } from '../core/errors.js';
import { hashSecret, SECRET_LENGTH, SECRET_PREFIX } from './secret.js';
import type { KeyRecord } from '../store/types.js';

export interface KeySource {
  authorization?: string | undefined;
  xApiKey?: string | undefined;
  xGoogApiKey?: string | undefined;
  queryKey?: string | undefined;
}

/**
 * One key works with every SDK, so every surface accepts every form: `Authorization: Bearer`,
 * `x-api-key`, `x-goog-api-key` and `?key=`. Returns undefined when none is present.
 */
export function extractKey(src: KeySource): string | undefined {
  if (src.authorization !== undefined) {
    const m = /^bearer /i.exec(src.authorization);
    // "Authorization: sk-…" without the scheme is a common copy-paste slip; accept it.
    return m ? src.authorization.slice(m[0].length) : src.authorization;
  }
  return src.xApiKey ?? src.xGoogApiKey ?? src.queryKey;
}

const HOW_TO_SEND =
  'Send your Tollgate key (sk-…) as "Authorization: Bearer <key>" (OpenAI and Responses clients), "x-api-key" (Messages clients) or "x-goog-api-key" (Gemini clients).';

function unauthorized(code: string, message: string): GatewayError {
  return new GatewayError('authentication', message, { code });
}

/**
 * Looks a presented secret up by its hash. The lookup is a hash-table probe on SHA-256 output,
 * so its timing says nothing about how much of a guessed secret was right.
 * Every 401 says what is wrong, because "invalid key" alone sends people in circles.
 */
export function authenticate(
  presented: string | undefined,
  byHash: ReadonlyMap<string, KeyRecord>,
  now: number,
): KeyRecord {
  if (presented === undefined || presented === '')
    throw unauthorized('missing_api_key', `No API key was sent. ${HOW_TO_SEND}`);
  if (/\s/.test(presented)) {
    throw unauthorized(
      'api_key_whitespace',
      'The API key has spaces or line breaks in or around it. Copy the key again without surrounding whitespace.',
    );
  }
  if (!presented.startsWith(SECRET_PREFIX)) {
    throw unauthorized(
      'api_key_not_tollgate',
      `The API key is not a Tollgate key: Tollgate keys start with "${SECRET_PREFIX}". ${HOW_TO_SEND}`,
    );
  }
  const key = byHash.get(hashSecret(presented));
  if (!key) {
    if (presented.length < SECRET_LENGTH) {
      throw unauthorized(
        'api_key_truncated',
        `The API key is ${presented.length} characters long but Tollgate keys have ${SECRET_LENGTH}: it was cut short when copied. Copy the whole key again.`,
      );
    }
    throw unauthorized(
      'invalid_api_key',
      'The API key is not known to this Tollgate. Check that it was copied whole, or create a key with "tollgate keys create".',
    );
  }
  if (key.state === 'deleted')
    throw unauthorized('api_key_deleted', `The API key "${key.name}" was deleted. Create a new key.`);
  if (key.state === 'disabled') {
    throw unauthorized(
      'api_key_disabled',
      `The API key "${key.name}" is disabled. Enable it in the console or with "tollgate keys enable ${key.name}".`,
    );
  }
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now) {
    throw unauthorized('api_key_expired', `The API key "${key.name}" expired at ${key.expiresAt}. Create a new key.`);
  }
  return key;
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSecret, hashSecret, lastFour, SECRET_LENGTH, SECRET_PREFIX } from '../../gateway/keys/secret.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const secrets = Array.from({ length: 10_000 }, generateSecret);

test('a secret is sk- and 48 base62 characters', () => {
  assert.equal(SECRET_PREFIX, 'sk-');
  assert.equal(SECRET_LENGTH, 51);
  for (const s of secrets) assert.match(s, /^sk-[A-Za-z0-9]{48}$/);
});

test('10,000 secrets are all different', () => {
  assert.equal(new Set(secrets).size, 10_000);
});

test('every character is about equally likely', () => {
  const counts = new Map<string, number>();
  for (const s of secrets) for (const ch of s.slice(3)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  assert.equal(counts.size, 62);
  const expected = (10_000 * 48) / 62; // ≈ 7742 per character
  let chi2 = 0;
  for (const ch of ALPHABET) {
    const n = counts.get(ch) ?? 0;
    chi2 += (n - expected) ** 2 / expected;
    assert.ok(
      Math.abs(n - expected) < expected * 0.08,
      `${ch} appeared ${n} times, expected about ${Math.round(expected)}`,
    );
  }
  // 61 degrees of freedom: mean 61, sd 11. A plain `byte % 62` (A–H 25 % likelier) scores in the thousands.
  assert.ok(chi2 < 130, `chi-square ${chi2.toFixed(1)}`);
});

test('the stored hash is SHA-256 in lower-case hex', () => {
  assert.equal(hashSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.match(hashSecret(secrets[0]!), /^[0-9a-f]{64}$/);
  assert.notEqual(hashSecret(secrets[0]!), hashSecret(secrets[1]!));
});

test('lastFour keeps the last four characters', () => {
  assert.equal(lastFour('sk-abcdefWXYZ'), 'WXYZ');
});

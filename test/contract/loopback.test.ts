/**
 * The one loopback check (gateway/contract/loopback.ts): the admin guard, the bind-address
 * settings, `tollgate serve --host`, the CLI and the desktop app (before they send the admin token),
 * and the presets' plain-http rule all ask it, so they cannot disagree.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isLoopbackHost, isLoopbackUrl } from '../../gateway/contract/loopback.js';

test('loopback: 127.0.0.0/8, ::1 bare or bracketed, IPv4-mapped 127.x, localhost with or without its dot', () => {
  for (const host of [
    '127.0.0.1',
    '127.0.0.2',
    '127.255.255.254',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
    '[::ffff:127.8.9.10]',
    'localhost',
    'LocalHost',
    'localhost.',
  ])
    assert.equal(isLoopbackHost(host), true, host);
});

test('not loopback: other addresses, every-interface addresses, look-alikes, and anything with a port or path', () => {
  for (const host of [
    '128.0.0.1',
    '126.255.255.255',
    '127.0.0.256',
    '10.0.0.1',
    '0.0.0.0',
    '::',
    '::2',
    '::ffff:10.0.0.1',
    'foo.localhost',
    'localhost..',
    'localhost.evil.com',
    '127.0.0.1.evil.com',
    '[::1]evil.com',
    'evil.com',
    '',
    ' 127.0.0.1',
    '127.0.0.1:4141',
    '[::1]:4141',
    'user@127.0.0.1',
    '127.0.0.1/admin',
  ])
    assert.equal(isLoopbackHost(host), false, host);
});

test('a URL is loopback by its host', () => {
  assert.equal(isLoopbackUrl('http://127.0.0.1:4141'), true);
  assert.equal(isLoopbackUrl('http://[::1]:4141/api'), true);
  assert.equal(isLoopbackUrl('http://localhost.:4141'), true);
  assert.equal(isLoopbackUrl('http://192.168.1.5:4141'), false);
  assert.equal(isLoopbackUrl('http://127.0.0.1.nip.io:4141'), false);
  assert.equal(isLoopbackUrl('not a url'), false);
});

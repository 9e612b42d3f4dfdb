import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { GatewayError } from '../../../gateway/core/errors.js';
import { encodeError } from '../../../gateway/wire/anthropic/errors.js';

test('every status gets the error.type the Anthropic SDKs expect', () => {
  const cases: [GatewayError, number, string][] = [
    [new GatewayError('invalid_request', 'bad'), 400, 'invalid_request_error'],
    [new GatewayError('authentication', 'who'), 401, 'authentication_error'],
    [new GatewayError('insufficient_funds', 'poor'), 402, 'billing_error'],
    [new GatewayError('permission', 'no'), 403, 'permission_error'],
    [new GatewayError('model_not_found', 'gone'), 404, 'not_found_error'],
    [new GatewayError('invalid_request', 'huge', { status: 413 }), 413, 'request_too_large'],
    [new GatewayError('rate_limit', 'slow down', { retryAfter: 3 }), 429, 'rate_limit_error'],
    [new GatewayError('internal', 'oops'), 500, 'api_error'],
    [new GatewayError('upstream_error', 'up'), 502, 'api_error'],
    [new GatewayError('upstream_unavailable', 'busy'), 503, 'overloaded_error'],
    [new GatewayError('upstream_timeout', 'late'), 504, 'timeout_error'],
    [new GatewayError('upstream_unavailable', 'busy', { status: 529 }), 529, 'overloaded_error'],
    [new GatewayError('invalid_request', 'teapot', { status: 418 }), 418, 'invalid_request_error'],
    [new GatewayError('upstream_error', 'odd', { status: 507 }), 507, 'api_error'],
  ];
  for (const [err, status, type] of cases) {
    const encoded = encodeError(err);
    const body: Anthropic.ErrorResponse | { type: 'error'; error: { type: string; message: string } } = {
      type: 'error',
      error: { type, message: err.message },
    };
    assert.equal(encoded.status, status);
    assert.deepEqual(encoded.body, body, `status ${status}`);
  }
});

test('retry hints: retry-after on 429, and a 402 is marked as not retryable', () => {
  assert.deepEqual(encodeError(new GatewayError('rate_limit', 'x', { retryAfter: 3 })).headers, {
    'retry-after': '3',
    'retry-after-ms': '3000',
  });
  assert.deepEqual(encodeError(new GatewayError('insufficient_funds', 'x')).headers, { 'x-should-retry': 'false' });
  assert.deepEqual(encodeError(new GatewayError('invalid_request', 'x')).headers, {});
});

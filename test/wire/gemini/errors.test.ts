import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '@google/genai';
import { GatewayError } from '../../../gateway/core/errors.js';
import { encodeError } from '../../../gateway/wire/gemini/errors.js';
import { withSdk } from './sdk-server.js';

test('every status gets the gRPC status name Google sends with it (docs/protocols.md §4)', () => {
  const cases: [GatewayError, number, string][] = [
    [new GatewayError('invalid_request', 'bad'), 400, 'INVALID_ARGUMENT'],
    [new GatewayError('authentication', 'who'), 401, 'UNAUTHENTICATED'],
    [new GatewayError('insufficient_funds', 'poor'), 402, 'FAILED_PRECONDITION'],
    [new GatewayError('permission', 'no'), 403, 'PERMISSION_DENIED'],
    [new GatewayError('model_not_found', 'gone'), 404, 'NOT_FOUND'],
    [new GatewayError('invalid_request', 'huge', { status: 413 }), 413, 'INVALID_ARGUMENT'],
    [new GatewayError('rate_limit', 'slow down', { retryAfter: 3 }), 429, 'RESOURCE_EXHAUSTED'],
    [new GatewayError('internal', 'oops'), 500, 'INTERNAL'],
    [new GatewayError('upstream_error', 'up'), 502, 'INTERNAL'],
    [new GatewayError('upstream_unavailable', 'busy'), 503, 'UNAVAILABLE'],
    [new GatewayError('upstream_timeout', 'late'), 504, 'DEADLINE_EXCEEDED'],
    [new GatewayError('invalid_request', 'teapot', { status: 418 }), 418, 'FAILED_PRECONDITION'],
    [new GatewayError('upstream_error', 'odd', { status: 507 }), 507, 'INTERNAL'],
  ];
  for (const [err, status, grpc] of cases) {
    const encoded = encodeError(err);
    assert.equal(encoded.status, status);
    const details: unknown[] = [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: err.code, domain: 'tollgate' },
    ];
    if (err.retryAfter !== undefined)
      details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${err.retryAfter}s` });
    assert.deepEqual(
      encoded.body,
      { error: { code: status, message: err.message, status: grpc, details } },
      `status ${status}`,
    );
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

test('@google/genai raises an ApiError with our status and message', async () => {
  const e = encodeError(new GatewayError('insufficient_funds', 'Wallet balance too low.', { code: 'wallet_empty' }));
  await withSdk(
    () => ({ status: e.status, headers: e.headers, chunks: [JSON.stringify(e.body)] }),
    async (ai) => {
      await assert.rejects(ai.models.generateContent({ model: 'm', contents: 'hi' }), (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.equal(err.status, 402);
        assert.match(err.message, /Wallet balance too low\./);
        assert.match(err.message, /FAILED_PRECONDITION/);
        return true;
      });
    },
  );
});

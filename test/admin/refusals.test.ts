/**
 * Every route of the admin table, called through the typed client against a real in-process
 * gateway (so each reply is also checked against its schema), then the refusals: bad query, bad
 * body, unknown route. The last test fails when a route of the table is not called in this file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { ErrorBody } from '../../gateway/contract/admin/index.js';
import { refusal, type TestGateway } from '../helpers/gateway.js';
import { servedGateway, type ServedGateway } from '../helpers/served-gateway.js';

let gw: TestGateway;
let call: ServedGateway['call'];
let served: ServedGateway;

before(async () => ({ gw, call } = served = await servedGateway()));
after(() => served.close());

describe('refusals', () => {
  const headers = (): Record<string, string> => ({
    host: '127.0.0.1',
    'content-type': 'application/json',
    authorization: `Bearer ${gw.running.adminToken}`,
  });

  async function inject(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: string,
  ): Promise<{ status: number; body: ErrorBody }> {
    const r = await gw.running.app.inject({
      method,
      url,
      headers: headers(),
      ...(payload === undefined ? {} : { payload }),
    });
    const body: unknown = r.json();
    assert.ok(Value.Check(ErrorBody, body), r.body);
    assert.deepEqual(Object.keys(body), ['error']);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'message']);
    return { status: r.statusCode, body };
  }

  test('a bad query string: 400 invalid_request naming the field', async () => {
    for (const [query, message] of [
      ['limit=0', 'querystring/limit must be >= 1'],
      ['limit=1.5', 'querystring/limit must be integer'],
      ['limit=', 'querystring/limit must be integer'],
      ['limit=ten', 'querystring/limit must be integer'],
      ['before=x', 'querystring/before must be integer'],
    ] as const) {
      const r = await inject('GET', `/api/logs?${query}`);
      assert.deepEqual([r.status, r.body.error.code, r.body.error.message], [400, 'invalid_request', message], query);
    }
    const twice = await inject('GET', '/api/logs?key=a&key=b');
    assert.deepEqual([twice.status, twice.body.error.code], [400, 'repeated_query_parameter']);
    const ok = await gw.running.app.inject({
      method: 'GET',
      url: '/api/logs?limit=2&before=999999&unknown=kept-out',
      headers: headers(),
    });
    assert.equal(ok.statusCode, 200);
    const viaClient = await refusal(call('listLogs', { query: { limit: 0 } }));
    assert.deepEqual(
      [viaClient.status, viaClient.code, viaClient.message],
      [400, 'invalid_request', 'querystring/limit must be >= 1'],
    );
  });

  test('a bad body: 400 invalid_request with the validator message', async () => {
    for (const [method, url, payload, message] of [
      ['POST', '/api/keys', '{"name":"bad name!"}', 'body/name must match pattern "^[A-Za-z0-9][A-Za-z0-9._@-]*$"'],
      [
        'POST',
        '/api/keys',
        '{"name":"ok","rpm":0}',
        'body/rpm must be >= 1, body/rpm must be null, body/rpm must match a schema in anyOf',
      ],
      ['POST', '/api/keys', '', 'body must be object'],
      ['POST', '/api/wallet/topup', '{"amountMicro":1,"extra":true}', 'body must NOT have additional properties'],
      ['POST', '/api/wallet/topup', '{"amountMicro":"1"}', 'body/amountMicro must be integer'],
      ['PATCH', '/api/lines/served', '{"name":"renamed"}', 'body must NOT have additional properties'],
      [
        'POST',
        '/api/lines',
        '{"name":"x","protocol":"anthropic-messages","baseUrl":"http://127.0.0.1:1/v1","models":["gpt-4o"]}',
        'body/protocol must be equal to one of the allowed values',
      ],
    ] as const) {
      const r = await inject(method, url, payload);
      assert.deepEqual(
        [r.status, r.body.error.code, r.body.error.message],
        [400, 'invalid_request', message],
        `${method} ${url} ${payload}`,
      );
    }
    const json = await inject('POST', '/api/keys', '{"name": ');
    assert.deepEqual([json.status, json.body.error.code], [400, 'invalid_request']);
    const viaClient = await refusal(call('topUp', { body: { amountMicro: 0 } }));
    assert.deepEqual(
      [viaClient.status, viaClient.code, viaClient.message],
      [400, 'invalid_request', 'body/amountMicro must be >= 1'],
    );
  });

  test('an unknown route or method: 404 not_found', async () => {
    const unknown = await inject('GET', '/api/nope?x=1');
    assert.deepEqual(
      [unknown.status, unknown.body.error.code, unknown.body.error.message],
      [404, 'not_found', 'The admin API has no route GET /api/nope. See docs/admin-api.md.'],
    );
    const method = await inject('DELETE', '/api/wallet');
    assert.deepEqual([method.status, method.body.error.code], [404, 'not_found']);
  });
});

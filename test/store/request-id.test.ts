/**
 * Request ids keep their `req_` + 32 hex digits form and sort by time, so the ledger's request_id
 * index grows at its end instead of taking each row on a random page.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newRequestId } from '../../gateway/store/request-id.js';

test('request ids are req_ and 32 hex digits, unique, and later ids sort later', () => {
  const ids = new Set<string>();
  let previous = '';
  for (let i = 0; i < 10_000; i++) {
    const id = newRequestId(1_700_000_000_000 + i);
    assert.match(id, /^req_[0-9a-f]{32}$/);
    assert.ok(id > previous, `${id} sorts after ${previous}`);
    previous = id;
    ids.add(id);
  }
  assert.equal(ids.size, 10_000);
  // Within one millisecond the 80 random bits keep them apart.
  const same = new Set(Array.from({ length: 10_000 }, () => newRequestId(1_700_000_000_000)));
  assert.equal(same.size, 10_000);
  assert.ok(newRequestId().startsWith(`req_${Date.now().toString(16).padStart(12, '0').slice(0, 8)}`));
});

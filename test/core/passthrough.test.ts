import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upstreamBody, withModel, withTopModel } from '../../gateway/core/passthrough.js';

test('withModel sets the model at its path, and leaves other data as the same string', () => {
  assert.equal(
    withModel('{"id":"x","model":"gpt-4o-2024-08-06","n":1}', ['model'], 'gpt-4o'),
    '{"id":"x","model":"gpt-4o","n":1}',
  );
  assert.equal(
    withModel('{"type":"message_start","message":{"model":"claude-x-1"}}', ['message', 'model'], 'claude-x'),
    '{"type":"message_start","message":{"model":"claude-x"}}',
  );
  const same = ' {"model": "gpt-4o"} ';
  assert.equal(withModel(same, ['model'], 'gpt-4o'), same, 'already the requested id: the bytes as they came');
  for (const data of [
    '{"type":"content_block_delta"}',
    '[DONE]',
    '{"model":',
    '{"message":null,"model":"m"}',
    '{"input":{"model":"tool arg"}}',
  ]) {
    assert.equal(
      withModel(data, data.includes('message') ? ['message', 'model'] : ['response', 'model'], 'x'),
      data,
      data,
    );
  }
});

test('withModel: an event whose one model field already says the id is passed as it came; any doubt is parsed', () => {
  const usual = '{"id":"c1","object":"chat.completion.chunk","model":"gpt-4o","choices":[{"delta":{"content":"Hi"}}]}';
  assert.equal(withModel(usual, ['model'], 'gpt-4o'), usual);
  // The first field of the name says the id, but another one is the one at the path.
  assert.equal(
    withModel('{"input":{"model":"gpt-4o"},"model":"gpt-4o-2024"}', ['model'], 'gpt-4o'),
    '{"input":{"model":"gpt-4o"},"model":"gpt-4o"}',
  );
  // The name spelled with an escape is the same field to a JSON reader.
  assert.equal(
    withModel('{"mod\\u0065l":"gpt-4o-2024","x":{"model":"gpt-4o"}}', ['model'], 'gpt-4o'),
    '{"model":"gpt-4o","x":{"model":"gpt-4o"}}',
  );
  // A longer id that starts with the requested one is not the requested one.
  assert.equal(withModel('{"model":"gpt-4o-mini"}', ['model'], 'gpt-4o'), '{"model":"gpt-4o"}');
});

test('upstreamBody: a new model id alone is written into the client text, the rest byte for byte', () => {
  const raw =
    '{ "model" : "claude-alias",\n"messages":[{"role":"user","content":"say \\"model\\": hi"}],"max_tokens":9}';
  const body = JSON.parse(raw) as Record<string, unknown>;
  const sent = upstreamBody(raw, body, { model: 'claude-x-1' });
  assert.equal(sent, raw.replace('"claude-alias"', '"claude-x-1"'));
  assert.deepEqual(JSON.parse(sent), { ...body, model: 'claude-x-1' });
  assert.equal(upstreamBody(raw, body, { model: 'claude-alias' }), raw, 'the same id: the bytes as they came');
});

test('upstreamBody: where the model member is not certain from the text, the body is serialised again', () => {
  for (const raw of [
    // A second member named model (a tool's input), a \u escape, a duplicate top-level member, an escaped value.
    '{"model":"a","tools":[{"input_schema":{"properties":{"model":{"type":"string"}}}}]}',
    '{"model":"a","messages":[{"content":"\\u0041"}]}',
    '{"mod\\u0065l":"b","model":"a"}',
    '{"model":"\\/a"}',
  ]) {
    const body = JSON.parse(raw) as Record<string, unknown>;
    const sent = upstreamBody(raw, body, { model: 'z' });
    assert.equal(sent, JSON.stringify({ ...body, model: 'z' }), raw);
  }
  // A key that ends in "model inside another key's text is not a member named model.
  const raw = '{"say \\"model":1,"model":"a"}';
  assert.equal(withTopModel(raw, 'a', 'z'), '{"say \\"model":1,"model":"z"}');
  assert.equal(withTopModel('{"model":"b"}', 'a', 'z'), undefined, 'a value other than the parsed one');
});

test('upstreamBody: other changes still serialise the body with every change in it', () => {
  const raw = '{"model":"a","max_tokens":9}';
  const body = JSON.parse(raw) as Record<string, unknown>;
  assert.equal(upstreamBody(raw, body, { model: 'z', max_tokens: 5 }), '{"model":"z","max_tokens":5}');
  assert.equal(upstreamBody(raw, body, { model: 'a', max_tokens: 9 }), raw);
});

/**
 * Reasoning through the Responses format (docs/protocols.md §6.6): what Tollgate gives Codex for
 * another family comes back whole when Codex resends its history, and never reaches OpenAI.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalResponse } from '../../../gateway/core/canonical.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/openai-responses/decode.js';
import { outputItems } from '../../../gateway/wire/openai-responses/encode.js';
import { responsesPassthrough } from '../../../gateway/wire/openai-responses/passthrough.js';

const answer: CanonicalResponse = {
  id: 'x',
  model: 'm',
  stopReason: 'tool_use',
  usage: emptyUsage(),
  content: [
    { type: 'thinking', text: 'claude', signature: 'EqSig', family: 'anthropic' },
    { type: 'redacted_thinking', data: 'EmwK', family: 'anthropic' },
    { type: 'thinking', text: 'deepseek', family: 'openai-chat' },
    { type: 'thinking', text: 'openai', signature: 'gAAAAenc', family: 'openai' },
    {
      type: 'tool_call',
      id: 'call_1',
      name: 'exec_command',
      input: { cmd: 'ls' },
      signature: 'CiSig',
      signatureFamily: 'gemini',
    },
  ],
};

test("Codex resends the output items; decode gives back each family's block and the call its signature", () => {
  const items = outputItems(answer, { requestedModel: 'm', requestId: 'req_1' });
  const back = decodeRequest({
    model: 'm',
    input: [
      { role: 'user', content: 'q' },
      ...items,
      { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
    ],
  });
  assert.deepEqual(back.messages[1]?.content, answer.content);
  assert.deepEqual(back.notes, []);
});

test("the pass-through leaves OpenAI's own reasoning and takes out the marked items, with a note", () => {
  const items = outputItems(answer, { requestedModel: 'm', requestId: 'req_1' });
  const body = { model: 'gpt-5.4', store: false, input: [{ role: 'user', content: 'q' }, ...items] };
  const up = responsesPassthrough(body, JSON.stringify(body)).request('gpt-5.4');
  const sent = JSON.parse(up.body) as { input: { type?: string; encrypted_content?: string }[] };
  assert.deepEqual(
    sent.input.filter((i) => i.type === 'reasoning').map((i) => i.encrypted_content),
    ['gAAAAenc'],
  );
  assert.equal(sent.input.filter((i) => i.type === 'function_call').length, 1);
  assert.deepEqual(up.notes, [
    'openai-responses: dropped 4 reasoning item(s) of another family: only the family that made them can verify them',
  ]);
  const clean = { model: 'gpt-5.4', input: [{ role: 'user', content: 'q' }] };
  const raw = JSON.stringify(clean);
  assert.equal(
    responsesPassthrough(clean, raw).request('gpt-5.4').body,
    raw,
    "nothing to take out: the client's bytes go up",
  );
});

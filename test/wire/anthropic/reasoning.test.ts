/**
 * Reasoning through the Messages format (docs/protocols.md §6.6): another family's reasoning goes
 * to Messages clients under Tollgate's mark and comes back whole; what Anthropic would refuse is
 * removed before it goes up, on the pass-through too.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CanonicalResponse } from '../../../gateway/core/canonical.js';
import { isMarked, unmark } from '../../../gateway/core/reasoning.js';
import { emptyUsage } from '../../../gateway/core/usage.js';
import { decodeRequest } from '../../../gateway/wire/anthropic/decode.js';
import { encodeResponse } from '../../../gateway/wire/anthropic/encode.js';
import {
  loopWithoutThinking,
  refusedReasoning,
  withoutRefusedReasoning,
} from '../../../gateway/wire/anthropic/history.js';
import { messagesPassthrough } from '../../../gateway/wire/anthropic/passthrough.js';

const ctx = { requestedModel: 'claude-sonnet-4-6', requestId: 'req_1' };
const answer = (content: CanonicalResponse['content']): CanonicalResponse => ({
  id: 'x',
  model: 'm',
  content,
  stopReason: 'tool_use',
  usage: emptyUsage(),
});

describe("Messages clients carry other families' reasoning", () => {
  test('encode marks foreign thinking and carries a call signature; decode restores both', () => {
    const wire = encodeResponse(
      answer([
        { type: 'thinking', text: 'mine', signature: 'EqSig', family: 'anthropic' },
        { type: 'thinking', text: 'o-summary', signature: 'gAAAAenc', family: 'openai' },
        { type: 'thinking', text: 'deepseek says', family: 'openai-chat' },
        {
          type: 'tool_call',
          id: 'call_g_0',
          name: 'Read',
          input: { p: 1 },
          signature: 'CiSig',
          signatureFamily: 'gemini',
        },
      ]),
      ctx,
    );
    const [own, openai, chat, carrier, use] = wire.content as {
      type: string;
      thinking?: string;
      signature?: string;
      id?: string;
    }[];
    assert.deepEqual(
      own,
      { type: 'thinking', thinking: 'mine', signature: 'EqSig' },
      "Anthropic's own goes out as it came",
    );
    assert.equal(openai?.thinking, 'o-summary', 'the text stays readable');
    assert.ok(isMarked(openai?.signature) && isMarked(chat?.signature) && isMarked(carrier?.signature));
    assert.deepEqual(unmark(carrier?.signature), {
      kind: 'call',
      family: 'gemini',
      callId: 'call_g_0',
      signature: 'CiSig',
    });
    assert.equal(use?.type, 'tool_use');
    // The client sends the turn back verbatim.
    const back = decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: wire.content },
      ],
    });
    assert.deepEqual(back.messages[1]?.content, [
      { type: 'thinking', text: 'mine', signature: 'EqSig', family: 'anthropic' },
      { type: 'thinking', text: 'o-summary', signature: 'gAAAAenc', family: 'openai' },
      { type: 'thinking', text: 'deepseek says', family: 'openai-chat' },
      {
        type: 'tool_call',
        id: 'call_g_0',
        name: 'Read',
        input: { p: 1 },
        signature: 'CiSig',
        signatureFamily: 'gemini',
      },
    ]);
    assert.deepEqual(back.notes, []);
  });

  test('a damaged mark is kept as unsigned thinking of no family, with a note', () => {
    const back = decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'q' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 't', signature: 'tollgate.r1.!!' },
            { type: 'text', text: 'a' },
          ],
        },
      ],
    });
    assert.deepEqual(back.messages[1]?.content[0], { type: 'thinking', text: 't' });
    assert.match(back.notes.join(), /damaged Tollgate mark/);
  });
});

describe('what Anthropic refuses, removed on the pass-through', () => {
  const foreign = {
    type: 'thinking',
    thinking: 'from deepseek',
    signature: encodeResponse(answer([{ type: 'thinking', text: 'x', family: 'openai-chat' }]), ctx).content[0]!
      .signature,
  };
  const own = { type: 'thinking', thinking: 'mine', signature: 'EqSig' };
  const call = { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} };
  const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] };

  test('refusedReasoning: empty or marked signatures, marked redacted data', () => {
    assert.equal(refusedReasoning(own), false);
    assert.equal(refusedReasoning({ type: 'thinking', thinking: 't', signature: '' }), true);
    assert.equal(refusedReasoning({ type: 'thinking', thinking: 't' }), true);
    assert.equal(refusedReasoning(foreign), true);
    assert.equal(refusedReasoning({ type: 'redacted_thinking', data: 'EmwK' }), false);
    assert.equal(refusedReasoning({ type: 'text', text: '' }), false);
    assert.equal(
      withoutRefusedReasoning([{ role: 'assistant', content: [own, call] }]),
      undefined,
      "nothing to change: the client's bytes go up",
    );
  });

  test('loopWithoutThinking: a tool loop in progress whose opening turn has no thinking', () => {
    assert.equal(
      loopWithoutThinking([{ role: 'user', content: 'q' }, { role: 'assistant', content: [call] }, result]),
      true,
    );
    assert.equal(
      loopWithoutThinking([{ role: 'user', content: 'q' }, { role: 'assistant', content: [own, call] }, result]),
      false,
    );
    assert.equal(
      loopWithoutThinking([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [call] },
        result,
        { role: 'system', content: 'note' },
      ]),
      true,
      'mid-conversation system messages do not end the loop',
    );
    assert.equal(
      loopWithoutThinking([
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: 'next' },
      ]),
      false,
    );
  });

  test('the upstream body: marked and unsigned blocks gone, thinking off inside a foreign loop, notes for the log', () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      thinking: { type: 'adaptive' },
      context_management: { edits: [{ type: 'clear_thinking_20251015' }, { type: 'clear_tool_uses_20250919' }] },
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: [foreign, { type: 'thinking', thinking: 'old', signature: '' }, call] },
        result,
      ],
    };
    const up = messagesPassthrough(body, JSON.stringify(body), { 'anthropic-version': '2023-06-01' }).request(
      'claude-sonnet-4-6-20260101',
    );
    const sent = JSON.parse(up.body) as typeof body;
    assert.deepEqual(sent.messages[1], { role: 'assistant', content: [call] });
    assert.deepEqual(sent.thinking, { type: 'disabled' });
    assert.deepEqual(sent.context_management, { edits: [{ type: 'clear_tool_uses_20250919' }] });
    assert.equal((sent as { model: string }).model, 'claude-sonnet-4-6-20260101');
    assert.equal(up.notes?.length, 2);
    assert.match(up.notes!.join('\n'), /dropped 2 thinking block\(s\)[\s\S]*thinking turned off/);
  });

  test('a history Anthropic accepts goes up byte for byte', () => {
    const body = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      thinking: { type: 'adaptive' },
      messages: [{ role: 'user', content: 'q' }, { role: 'assistant', content: [own, call] }, result],
    };
    const raw = JSON.stringify(body);
    const up = messagesPassthrough(body, raw, { 'anthropic-version': '2023-06-01' }).request('claude-sonnet-4-6');
    assert.equal(up.body, raw);
    assert.equal(up.notes, undefined);
  });
});

/** The last tool round of a body, in each format, as the loop guard compares it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lastToolRound } from '../../gateway/sessions/tool-turn.js';

const anthropic = (id: string, result: string) => ({
  messages: [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: result }] },
  ],
});

test('equal rounds are equal whatever their call ids; a different result is a different round', () => {
  const a = lastToolRound('anthropic', anthropic('t1', 'x'));
  assert.equal(a?.call, 'Read {"file_path":"a"}');
  assert.equal(lastToolRound('anthropic', anthropic('t2', 'x'))?.signature, a?.signature);
  assert.notEqual(lastToolRound('anthropic', anthropic('t3', 'y'))?.signature, a?.signature);
  assert.equal(lastToolRound('anthropic', { messages: [{ role: 'user', content: 'hi' }] }), null);
});

test('Chat Completions, Responses and Gemini rounds', () => {
  const chat = lastToolRound('openai-chat', {
    messages: [
      { role: 'assistant', tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'r' },
    ],
  });
  assert.equal(chat?.call, 'f {}');
  const responses = (chunk: string) =>
    lastToolRound('openai-responses', {
      input: [
        { type: 'function_call', call_id: 'c', name: 'exec_command', arguments: '{"cmd":"ls"}' },
        {
          type: 'function_call_output',
          call_id: 'c',
          output: `Chunk ID: ${chunk}\nWall time: 0.1 seconds\nOutput:\nx\n`,
        },
      ],
    });
  assert.equal(responses('aaa')?.call, 'exec_command {"cmd":"ls"}');
  assert.equal(responses('aaa')?.signature, responses('bbb')?.signature, "Codex's per-run headers are left out");
  const gemini = lastToolRound('gemini', {
    contents: [
      { role: 'model', parts: [{ functionCall: { name: 'ls', args: { dir: '.' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'ls', response: { out: 'a' } } }] },
    ],
  });
  assert.equal(gemini?.call, 'ls {"dir":"."}');
});

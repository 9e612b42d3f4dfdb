/** The tool, session and sub-agent read from the headers the real clients send (docs/sessions.md). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identify, toolOf } from '../../gateway/sessions/identify.js';

test('each client is told apart by its user agent, the SDK a tool is built on notwithstanding', () => {
  const cases: [Record<string, string>, string][] = [
    [{ 'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)', 'x-stainless-lang': 'js' }, 'claude-code'],
    [{ 'user-agent': 'codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown', originator: 'codex_exec' }, 'codex'],
    [
      {
        'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)',
        'x-goog-api-client': 'google-genai-sdk/1.30.0',
      },
      'gemini-cli',
    ],
    [{ 'user-agent': 'opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14' }, 'opencode'],
    [{ 'user-agent': 'OpenAI/JS 6.49.0' }, 'openai-sdk'],
    [{ 'user-agent': 'Anthropic/JS 1.12.0' }, 'anthropic-sdk'],
    [{ 'user-agent': 'google-genai-sdk/2.32.0 gl-node/v20.20.2' }, 'google-genai-sdk'],
    [{ 'user-agent': 'curl/7.88.1' }, 'curl'],
    [{ 'user-agent': 'node' }, 'unknown'],
    [{}, 'unknown'],
  ];
  for (const [h, tool] of cases) assert.equal(toolOf(h), tool, JSON.stringify(h));
});

test('session and sub-agent ids: x-tollgate-session first, then the tool’s own', () => {
  assert.deepEqual(identify({ 'x-claude-code-session-id': 'abc', 'x-claude-code-agent-id': 'sub' }), {
    tool: 'claude-code',
    sessionId: 'abc',
    agent: 'sub',
    project: null,
  });
  assert.deepEqual(identify({ 'session-id': 'c1', 'thread-id': 'c1', 'user-agent': 'codex_exec/0.169.0' }).agent, null);
  assert.equal(identify({ 'session-id': 'c1', 'thread-id': 't2' }).agent, 't2');
  assert.equal(identify({ 'x-session-id': 'ses_1' }).sessionId, 'ses_1');
  assert.equal(identify({ 'x-tollgate-session': 'mine', 'x-claude-code-session-id': 'abc' }).sessionId, 'mine');
  assert.equal(identify({ 'x-tollgate-project': 'repo' }).project, 'repo');
  // Not printable ASCII, or too long: not used.
  assert.equal(identify({ 'x-tollgate-session': 'a\u0000b' }).sessionId, null);
  assert.equal(identify({ 'x-tollgate-session': 'x'.repeat(129) }).sessionId, null);
});

/** Anthropic API versions on translated requests (gateway/wire/anthropic/versions.ts; docs/protocols.md §2.1). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';
import { toRequest } from '../../../gateway/wire/anthropic/to-request.js';
import { ANTHROPIC_VERSION, versionRules } from '../../../gateway/wire/anthropic/versions.js';

function req(over: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    model: 'claude-sonnet-4-6',
    system: [],
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'read this', citations: [{ type: 'char_location', cited_text: 'x' }] },
          { type: 'text', text: 'and this', citations: [] },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' } },
          { type: 'text', text: 'read', citations: [{ type: 'char_location', cited_text: 'y' }] },
        ],
      },
      { role: 'assistant', content: [{ type: 'document', source: { kind: 'url', url: 'https://x/a.pdf' } }] },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    ],
    tools: [],
    stream: false,
    notes: [],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    ...over,
  };
}

test('a line without a version speaks 2023-06-01, which takes everything', () => {
  assert.equal(versionRules().version, ANTHROPIC_VERSION);
  assert.equal(versionRules({ id: 'l', anthropicVersion: '  ' }).version, ANTHROPIC_VERSION);
  const up = toRequest(req(), undefined, { id: 'l' });
  assert.equal(up.headers['anthropic-version'], '2023-06-01');
  const body = up.body as Record<string, unknown>;
  assert.deepEqual([body.temperature, body.top_p, body.top_k], [1, 0.95, 64]);
  assert.equal(JSON.stringify(body.messages).match(/"document"/g)?.length, 2);
});

test('2026-10-21 and later: no sampling fields even at defaults, no assistant documents, no user citations; a note each', () => {
  for (const version of ['2026-10-21', '2027-01-01']) {
    const r = req();
    const up = toRequest(r, undefined, { id: 'l', anthropicVersion: version });
    assert.equal(up.headers['anthropic-version'], version);
    const body = up.body as { messages: { role: string; content: Record<string, unknown>[] }[] } & Record<
      string,
      unknown
    >;
    assert.equal(body.temperature, undefined);
    assert.equal(body.top_p, undefined);
    assert.equal(body.top_k, undefined);
    assert.deepEqual(
      body.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
      'an assistant turn left empty goes, and the turns still alternate',
    );
    assert.deepEqual(body.messages[0]!.content, [
      { type: 'text', text: 'read this' },
      { type: 'text', text: 'and this' },
    ]);
    assert.deepEqual(
      body.messages[1]!.content,
      [{ type: 'text', text: 'read', citations: [{ type: 'char_location', cited_text: 'y' }] }],
      "the model's own citations stay",
    );
    assert.deepEqual(
      r.notes.filter((n) => n.includes(`anthropic-version ${version}`)),
      [
        `anthropic: dropped citations on user text: anthropic-version ${version} refuses it`,
        `anthropic: dropped a document block in an assistant message: anthropic-version ${version} refuses it`,
        `anthropic: dropped a document block in an assistant message: anthropic-version ${version} refuses it`,
        `anthropic: dropped temperature: anthropic-version ${version} refuses it`,
        `anthropic: dropped top_p: anthropic-version ${version} refuses it`,
        `anthropic: dropped top_k: anthropic-version ${version} refuses it`,
      ],
    );
  }
});

test('versions before 2026-10-21, and names that are not dates, keep the old rules', () => {
  for (const anthropicVersion of ['2026-10-20', '2023-06-01', 'bedrock-2023-05-31']) {
    const rules = versionRules({ id: 'l', anthropicVersion });
    assert.equal(rules.version, anthropicVersion);
    assert.equal(rules.noSampling || rules.noAssistantDocuments || rules.noUserCitations, false, anthropicVersion);
  }
});

test('nothing refused, nothing said', () => {
  const r = req({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
  delete r.temperature;
  delete r.topP;
  delete r.topK;
  toRequest(r, undefined, { id: 'l', anthropicVersion: '2026-10-21' });
  assert.deepEqual(r.notes, []);
});

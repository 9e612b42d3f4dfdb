/** A Claude Code request as it reaches the Messages interface, and what it decodes into. */
import type Anthropic from '@anthropic-ai/sdk';
import type { CanonicalRequest } from '../../../gateway/core/canonical.js';

/** Beta-only fields Claude Code sends that the non-beta SDK type does not list. */
export type ClaudeCodeBody = Anthropic.MessageCreateParamsStreaming & { context_management: unknown };

/** Sampling fields older clients send; SDK 1.x deprecated them and dropped them from its types. */
export type Sampling = { temperature?: number; top_p?: number; top_k?: number };

export const USER_ID = JSON.stringify({
  device_id: '4f1c9a0e7b',
  account_uuid: '',
  session_id: '5f0c2d8e-1b7a-4c1e-9d2f-3a6b8c0e1f24',
});

/** Shaped after the [OBSERVED] Claude Code 2.1.197 traffic in docs/protocols.md §2. */
export const claudeCodeBody: ClaudeCodeBody = {
  model: 'claude-opus-4-8',
  max_tokens: 64000,
  system: [
    { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197.3f2; cc_entrypoint=sdk-cli; cch=00000;' },
    {
      type: 'text',
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cache_control: { type: 'ephemeral' },
    },
    {
      type: 'text',
      text: 'You are an interactive CLI tool that helps users with software engineering tasks.',
      cache_control: { type: 'ephemeral', ttl: '1h' },
    },
  ],
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: '<system-reminder>\nAs you answer the user, you can use the following context: …\n</system-reminder>',
        },
        { type: 'text', text: 'What is the package name?', cache_control: { type: 'ephemeral' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I should read package.json.', signature: 'EqQBCkYIBxgCKkBsig==' },
        { type: 'text', text: "I'll read it." },
        {
          type: 'tool_use',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'Read',
          input: { file_path: '/repo/package.json' },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_01A09q90qw90lq917835lq9',
          content: '     1\t{"name":"demo"}',
          cache_control: { type: 'ephemeral' },
        },
      ],
    },
    { role: 'system', content: 'The user switched the output style to Explanatory.' },
    {
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
        { type: 'tool_use', id: 'toolu_02B', name: 'Bash', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_02B',
          content: [{ type: 'text', text: 'a.txt\nb.txt' }],
          is_error: false,
        },
        { type: 'text', text: 'Thanks. Now list them.', cache_control: { type: 'ephemeral' } },
      ],
    },
  ],
  tools: [
    {
      name: 'Read',
      description: 'Reads a file.',
      input_schema: {
        type: 'object',
        properties: { file_path: { type: 'string' } },
        required: ['file_path'],
        additionalProperties: false,
      },
    },
    {
      name: 'Bash',
      description: 'Runs a command.',
      input_schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
    { name: 'web_search', type: 'web_search_20250305', max_uses: 5 },
    {
      name: 'Edit',
      description: 'Edits a file.',
      input_schema: { type: 'object', properties: { old_string: { type: 'string' } } },
      cache_control: { type: 'ephemeral' },
    },
  ],
  thinking: { type: 'adaptive' },
  output_config: { effort: 'high' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  metadata: { user_id: USER_ID },
  stream: true,
};

export const claudeCodeCanonical: CanonicalRequest = {
  model: 'claude-opus-4-8',
  system: [
    { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.197.3f2; cc_entrypoint=sdk-cli; cch=00000;' },
    {
      type: 'text',
      text: "You are Claude Code, Anthropic's official CLI for Claude.",
      cacheControl: { type: 'ephemeral' },
    },
    {
      type: 'text',
      text: 'You are an interactive CLI tool that helps users with software engineering tasks.',
      cacheControl: { type: 'ephemeral', ttl: '1h' },
    },
  ],
  messages: [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: '<system-reminder>\nAs you answer the user, you can use the following context: …\n</system-reminder>',
        },
        { type: 'text', text: 'What is the package name?', cacheControl: { type: 'ephemeral' } },
      ],
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          text: 'I should read package.json.',
          signature: 'EqQBCkYIBxgCKkBsig==',
          family: 'anthropic',
        },
        { type: 'text', text: "I'll read it." },
        {
          type: 'tool_call',
          id: 'toolu_01A09q90qw90lq917835lq9',
          name: 'Read',
          input: { file_path: '/repo/package.json' },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolCallId: 'toolu_01A09q90qw90lq917835lq9',
          content: [{ type: 'text', text: '     1\t{"name":"demo"}' }],
          cacheControl: { type: 'ephemeral' },
        },
      ],
    },
    { role: 'system', content: [{ type: 'text', text: 'The user switched the output style to Explanatory.' }] },
    {
      role: 'assistant',
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4a', family: 'anthropic' },
        { type: 'tool_call', id: 'toolu_02B', name: 'Bash', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          toolCallId: 'toolu_02B',
          content: [{ type: 'text', text: 'a.txt\nb.txt' }],
          isError: false,
        },
        { type: 'text', text: 'Thanks. Now list them.', cacheControl: { type: 'ephemeral' } },
      ],
    },
  ],
  tools: [
    {
      name: 'Read',
      description: 'Reads a file.',
      inputSchema: {
        type: 'object',
        properties: { file_path: { type: 'string' } },
        required: ['file_path'],
        additionalProperties: false,
      },
    },
    {
      name: 'Bash',
      description: 'Runs a command.',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
    },
    {
      name: 'Edit',
      description: 'Edits a file.',
      inputSchema: { type: 'object', properties: { old_string: { type: 'string' } } },
      cacheControl: { type: 'ephemeral' },
    },
  ],
  maxOutputTokens: 64000,
  stream: true,
  thinking: { type: 'adaptive' },
  reasoningEffort: 'high',
  user: USER_ID,
  notes: [
    'anthropic: dropped server tool "web_search" (web_search_20250305)',
    'anthropic: context_management is not carried to other providers',
  ],
};

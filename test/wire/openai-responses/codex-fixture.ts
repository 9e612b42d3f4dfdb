/**
 * A second-turn request body shaped like the one Codex CLI 0.169 sent (docs/protocols.md §3, observed):
 * developer and user message items with client-made `msg_` ids, no `instructions`, function
 * tools with strict:false, a namespace tool, web_search, reasoning.summary "auto", store:false,
 * include, prompt_cache_key and client_metadata, and the earlier turn resent in full: the
 * reasoning item, the function_call with the server's `fc_` id and its call_id, and the
 * function_call_output with a `fco_` id.
 */
import type OpenAI from 'openai';

const params: OpenAI.Responses.ResponseCreateParamsStreaming = {
  model: 'gpt-5-codex',
  input: [
    {
      type: 'message',
      id: 'msg_dev_0',
      role: 'developer',
      content: [
        {
          type: 'input_text',
          text: '<permissions instructions>\nFilesystem sandboxing: workspace-write.\n</permissions instructions>',
        },
      ],
    },
    {
      type: 'message',
      id: 'msg_dev_1',
      role: 'developer',
      content: [{ type: 'input_text', text: 'You are Codex, a coding agent.' }],
    },
    {
      type: 'message',
      id: 'msg_ctx_0',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/work/demo</cwd>\n</environment_context>' }],
    },
    {
      type: 'message',
      id: 'msg_user_0',
      role: 'user',
      content: [{ type: 'input_text', text: 'What files are here?' }],
    },
    {
      type: 'reasoning',
      id: 'rs_68f1',
      summary: [{ type: 'summary_text', text: '**Listing the directory**' }],
      encrypted_content: 'gAAAAABo8-encrypted',
    },
    {
      type: 'function_call',
      id: 'fc_68f1a2',
      call_id: 'call_Xq1',
      name: 'exec_command',
      arguments: '{"cmd":"ls -1","yield_time_ms":1000}',
    },
    {
      type: 'function_call_output',
      id: 'fco_68f1a3',
      call_id: 'call_Xq1',
      output: 'Chunk ID: 1\nOutput:\nREADME.md\nsrc\n',
    },
  ] as OpenAI.Responses.ResponseInput,
  tools: [
    {
      type: 'function',
      name: 'exec_command',
      description: 'Runs a command in a PTY, returning output or a session ID for ongoing interaction.',
      strict: false,
      parameters: {
        type: 'object',
        properties: { cmd: { type: 'string' }, yield_time_ms: { type: 'number' } },
        required: ['cmd'],
        additionalProperties: false,
      },
    },
    {
      type: 'function',
      name: 'write_stdin',
      description: 'Writes characters to an existing exec session.',
      strict: false,
      parameters: {
        type: 'object',
        properties: { session_id: { type: 'number' }, chars: { type: 'string' } },
        required: ['session_id'],
      },
    },
    {
      type: 'namespace',
      name: 'mcp__docs__',
      description: 'Tools of the docs MCP server.',
      tools: [
        {
          type: 'function',
          name: 'search_docs',
          description: 'Searches the docs.',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      ],
    },
    { type: 'web_search', external_web_access: false } as OpenAI.Responses.WebSearchTool,
  ],
  tool_choice: 'auto',
  parallel_tool_calls: true,
  reasoning: { summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: '0199e3c2-6d3c-7b40-9a51-2f0c1c7a1e55',
};

export const codexBody = { ...params, client_metadata: { 'x-codex-installation-id': 'f3b0c2d4' } };

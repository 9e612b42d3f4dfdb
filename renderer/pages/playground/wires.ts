/**
 * The four client protocols as the playground speaks them: how to ask for a reply and where its
 * text is in a response or a stream event. The requests go to the gateway's model API with a
 * Tollgate key, exactly as a tool would send them.
 */
import type { FormatId } from '../../../gateway/contract/formats.js';

type Json = Record<string, unknown>;

export interface Wire {
  request(a: { model: string; prompt: string; maxTokens: number; stream: boolean; secret: string }): {
    url: string;
    init: RequestInit;
  };
  /** Text in one parsed stream event (SSE `data:`), if any. */
  delta(data: Json): string;
  /** Text of a whole (non-streamed) response. */
  text(body: Json): string;
}

const get = (v: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>(
    (o, k) => (o !== null && typeof o === 'object' ? (o as Record<string | number, unknown>)[k] : undefined),
    v,
  );
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const post = (url: string, headers: Record<string, string>, body: Json): { url: string; init: RequestInit } => ({
  url,
  init: {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    credentials: 'omit',
  },
});

/** One per format (a Record over FormatId: a new format does not compile until it is here). */
export const WIRES: Record<FormatId, Wire> = {
  'openai-chat': {
    request: ({ model, prompt, maxTokens, stream, secret }) =>
      post(
        '/v1/chat/completions',
        { authorization: `Bearer ${secret}` },
        {
          model,
          messages: [{ role: 'user', content: prompt }],
          max_tokens: maxTokens,
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
        },
      ),
    delta: (d) => str(get(d, 'choices', 0, 'delta', 'content')),
    text: (b) => str(get(b, 'choices', 0, 'message', 'content')),
  },
  'openai-responses': {
    request: ({ model, prompt, maxTokens, stream, secret }) =>
      post(
        '/v1/responses',
        { authorization: `Bearer ${secret}` },
        { model, input: prompt, max_output_tokens: maxTokens, stream, store: false },
      ),
    delta: (d) => (d.type === 'response.output_text.delta' ? str(d.delta) : ''),
    text: (b) =>
      arr(b.output)
        .flatMap((o) => arr(get(o, 'content')))
        .map((c) => (get(c, 'type') === 'output_text' ? str(get(c, 'text')) : ''))
        .join(''),
  },
  anthropic: {
    request: ({ model, prompt, maxTokens, stream, secret }) =>
      post(
        '/v1/messages',
        { 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
        { model, max_tokens: maxTokens, messages: [{ role: 'user', content: prompt }], stream },
      ),
    delta: (d) => (d.type === 'content_block_delta' ? str(get(d, 'delta', 'text')) : ''),
    text: (b) =>
      arr(b.content)
        .map((c) => str(get(c, 'text')))
        .join(''),
  },
  gemini: {
    request: ({ model, prompt, maxTokens, stream, secret }) =>
      post(
        `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        { 'x-goog-api-key': secret },
        { contents: [{ role: 'user', parts: [{ text: prompt }] }], generationConfig: { maxOutputTokens: maxTokens } },
      ),
    delta: (d) => geminiText(d),
    text: (b) => geminiText(b),
  },
};

function geminiText(b: Json): string {
  return arr(get(b, 'candidates', 0, 'content', 'parts'))
    .map((p) => str(get(p, 'text')))
    .join('');
}

/** The message in any of the four protocols' error shapes. */
export function errorMessage(body: unknown, status: number): string {
  return str(get(body, 'error', 'message')) || `HTTP ${status}`;
}

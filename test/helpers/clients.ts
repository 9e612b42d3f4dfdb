/**
 * One request through each client protocol's official SDK, the way the fault, crash and soak
 * suites send them: what came back, the gateway's request id (x-request-id, to find the ledger
 * row), and the SDK's own error when it failed. No retries, so every failure is seen as it is.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

export const PROTOCOLS = ['openai-chat', 'anthropic', 'openai-responses', 'gemini'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

/** A Responses stream that ended in `error` or `response.failed`: the protocol's in-band error. */
export class StreamFailed extends Error {
  constructor(readonly event: unknown) {
    super(`the stream ended with ${JSON.stringify(event).slice(0, 300)}`);
  }
}

export interface Ask {
  model: string;
  stream: boolean;
  prompt: string;
  /** Aborts the request (the SDK then hangs up). */
  signal?: AbortSignal;
  /** Called with each streamed piece of text; return true to stop reading (the client leaves the loop). */
  onText?: (text: string) => boolean | void;
}

export interface Answer {
  /** The x-request-id the gateway answered with; '' when the SDK does not expose it. */
  requestId: string;
  text: string;
  /** The client left the stream early (onText said so). */
  leftEarly: boolean;
}

/** Calls `ask` against the gateway at `url` with key `key` in protocol `p`. Rejects with the SDK's error. */
export function askWith(p: Protocol, url: string, key: string, ask: Ask): Promise<Answer> {
  switch (p) {
    case 'openai-chat':
      return chat(new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }), ask);
    case 'openai-responses':
      return responses(new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 }), ask);
    case 'anthropic':
      return messages(new Anthropic({ baseURL: url, apiKey: key, maxRetries: 0 }), ask);
    case 'gemini':
      return gemini(new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: url } }), ask);
  }
}

/** Reads `pieces` (already mapped to text) until the end or until the caller leaves. */
async function drain(pieces: AsyncIterable<string>, ask: Ask): Promise<{ text: string; leftEarly: boolean }> {
  let text = '';
  for await (const piece of pieces) {
    text += piece;
    if (ask.onText?.(piece) === true) return { text, leftEarly: true };
  }
  return { text, leftEarly: false };
}

async function* mapped<T>(source: AsyncIterable<T>, f: (item: T) => string): AsyncIterable<string> {
  for await (const item of source) yield f(item);
}

async function chat(c: OpenAI, ask: Ask): Promise<Answer> {
  const messages = [{ role: 'user' as const, content: ask.prompt }];
  const opts = ask.signal ? { signal: ask.signal } : {};
  if (!ask.stream) {
    const { data, response } = await c.chat.completions.create({ model: ask.model, messages }, opts).withResponse();
    return {
      requestId: response.headers.get('x-request-id') ?? '',
      text: data.choices[0]?.message.content ?? '',
      leftEarly: false,
    };
  }
  const { data, response } = await c.chat.completions
    .create({ model: ask.model, messages, stream: true, stream_options: { include_usage: true } }, opts)
    .withResponse();
  const read = await drain(
    mapped(data, (c) => c.choices[0]?.delta.content ?? ''),
    ask,
  );
  return { requestId: response.headers.get('x-request-id') ?? '', ...read };
}

async function responses(c: OpenAI, ask: Ask): Promise<Answer> {
  const opts = ask.signal ? { signal: ask.signal } : {};
  if (!ask.stream) {
    const { data, response } = await c.responses
      .create({ model: ask.model, input: ask.prompt, store: false }, opts)
      .withResponse();
    return { requestId: response.headers.get('x-request-id') ?? '', text: data.output_text, leftEarly: false };
  }
  const { data, response } = await c.responses
    .create({ model: ask.model, input: ask.prompt, store: false, stream: true }, opts)
    .withResponse();
  let failed: unknown;
  const read = await drain(
    mapped(data, (e) => {
      // A stream that ends in `response.failed` or `error` is a failed request to the client.
      if (e.type === 'error' || e.type === 'response.failed') failed ??= new StreamFailed(e);
      return e.type === 'response.output_text.delta' ? e.delta : '';
    }),
    ask,
  );
  if (failed) throw failed;
  return { requestId: response.headers.get('x-request-id') ?? '', ...read };
}

async function messages(c: Anthropic, ask: Ask): Promise<Answer> {
  const params = { model: ask.model, max_tokens: 1024, messages: [{ role: 'user' as const, content: ask.prompt }] };
  const opts = ask.signal ? { signal: ask.signal } : {};
  if (!ask.stream) {
    const { data, response } = await c.messages.create(params, opts).withResponse();
    return {
      requestId: response.headers.get('x-request-id') ?? '',
      text: data.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      leftEarly: false,
    };
  }
  const { data, response } = await c.messages.create({ ...params, stream: true }, opts).withResponse();
  const read = await drain(
    mapped(data, (e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '')),
    ask,
  );
  return { requestId: response.headers.get('x-request-id') ?? '', ...read };
}

async function gemini(ai: GoogleGenAI, ask: Ask): Promise<Answer> {
  const params = { model: ask.model, contents: ask.prompt, config: ask.signal ? { abortSignal: ask.signal } : {} };
  if (!ask.stream) {
    const r = await ai.models.generateContent(params);
    return { requestId: r.sdkHttpResponse?.headers?.['x-request-id'] ?? '', text: r.text ?? '', leftEarly: false };
  }
  let requestId = '';
  const read = await drain(
    mapped(await ai.models.generateContentStream(params), (r) => {
      requestId ||= r.sdkHttpResponse?.headers?.['x-request-id'] ?? '';
      return r.text ?? '';
    }),
    ask,
  );
  return { requestId, ...read };
}

/** The HTTP status an SDK error carries, or undefined for a network-level failure. */
export function statusOf(err: unknown): number | undefined {
  if (err instanceof OpenAI.APIError || err instanceof Anthropic.APIError) return err.status ?? undefined;
  const e = err as { status?: unknown; name?: string };
  return typeof e?.status === 'number' ? e.status : undefined;
}

/**
 * Fakes for unit tests of the relay: a client response that records what was written, an upstream
 * whose answers are scripted, lines and admitted exchanges. No HTTP server, no sockets.
 */
import { EventEmitter } from 'node:events';
import type { Admission } from '../../gateway/billing/billing.js';
import type { CatalogueModel } from '../../gateway/catalogue/catalogue.js';
import type { ClientResponse } from '../../gateway/relay/respond.js';
import { newExchange, type Exchange, type Outcome } from '../../gateway/relay/exchange.js';
import type { LineRecord } from '../../gateway/store/types.js';
import type { UpstreamCall, UpstreamResponse } from '../../gateway/upstream/client.js';

/** A ServerResponse stand-in: status, headers and body as written; `hangUp()` is the client leaving. */
export class FakeResponse extends EventEmitter {
  statusCode = 0;
  headers: Record<string, unknown> = {};
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  chunks: string[] = [];

  get body(): string {
    return this.chunks.join('');
  }

  writeHead(status: number, headers: Record<string, unknown> = {}): this {
    this.statusCode = status;
    this.headers = { ...headers };
    this.headersSent = true;
    return this;
  }
  flushHeaders(): void {
    this.headersSent = true;
  }
  write(chunk: string | Uint8Array): boolean {
    this.headersSent = true;
    this.chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
    return true;
  }
  end(chunk?: string): this {
    if (chunk !== undefined) this.write(chunk);
    this.writableFinished = true;
    this.emit('finish');
    return this;
  }
  hangUp(): void {
    this.destroyed = true;
    this.emit('close');
  }
  /** The relay's view of it. */
  get client(): ClientResponse {
    return this as unknown as ClientResponse;
  }
}

/** An upstream body from text chunks; `error` is thrown after the chunks, like a connection cut mid-answer. */
export function fakeBody(chunks: readonly string[], error?: Error): UpstreamResponse['body'] {
  let destroyed = false;
  async function* gen(): AsyncGenerator<Uint8Array> {
    for (const c of chunks) {
      if (destroyed) return;
      yield Buffer.from(c);
      await new Promise((r) => setImmediate(r));
    }
    if (error) throw error;
  }
  const it = gen();
  return Object.assign(it, {
    text: async () => {
      if (error) throw error;
      return chunks.join('');
    },
    bytes: async () => {
      if (error) throw error;
      return Buffer.from(chunks.join(''));
    },
    destroy: () => {
      destroyed = true;
    },
  });
}

export function fakeAnswer(
  status: number,
  chunks: readonly string[] | string,
  opts: { headers?: Record<string, string>; error?: Error } = {},
): UpstreamResponse {
  return {
    status,
    headers: opts.headers ?? {},
    body: fakeBody(typeof chunks === 'string' ? [chunks] : chunks, opts.error),
  };
}

/** An upstream that answers each call with the next scripted answer (or throws it), and keeps the calls. */
export class FakeUpstream {
  calls: UpstreamCall[] = [];
  constructor(private readonly answers: ((call: UpstreamCall) => UpstreamResponse | Promise<UpstreamResponse>)[]) {}
  async send(call: UpstreamCall): Promise<UpstreamResponse> {
    this.calls.push(call);
    const next = this.answers.shift();
    if (!next) throw new Error('the fake upstream has no more answers');
    return next(call);
  }
  /** The JSON bodies sent, parsed. */
  bodies(): unknown[] {
    return this.calls.map(
      (c) => JSON.parse(typeof c.body === 'string' ? c.body : Buffer.from(c.body).toString('utf8')) as unknown,
    );
  }
}

export function line(id: string, over: Partial<LineRecord> = {}): LineRecord {
  return {
    id,
    name: id,
    protocol: 'openai-chat',
    baseUrl: `https://${id}.example/v1`,
    models: ['gpt-4o'],
    modelMap: {},
    apiKeySource: 'none',
    apiKeyEnv: null,
    rpm: null,
    priority: 0,
    weight: 1,
    enabled: true,
    timeouts: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    ...over,
  };
}

export const MODEL: CatalogueModel = {
  id: 'gpt-4o',
  vendor: 'openai',
  displayName: 'GPT-4o',
  contextWindow: 128_000,
  maxOutputTokens: 16_384,
  nativeProtocols: ['openai-chat'],
  prices: { input: 2_500_000, output: 10_000_000, cacheRead: 1_250_000, cacheWrite: 0 },
};

export function admission(candidates: LineRecord[], model: CatalogueModel = MODEL): Admission {
  return {
    model,
    multiplierPpm: 1_000_000,
    candidates,
    line: candidates[0]!,
    upstreamModel: model.id,
    // Large: the reservation caps the charge, and these fakes test the relay, not the cap.
    reservation: { keyId: 'key_a', amountMicro: 1_000_000_000, released: false },
    estimatedInputTokens: 100,
    outputLimit: undefined,
    keyId: 'key_a',
    quotaMicro: null,
  };
}

/** An admitted exchange for `candidates`, with a settle hook that records every outcome. */
export function admitted(
  candidates: LineRecord[],
  format: Exchange['format'] = 'openai-chat',
): { exchange: Exchange; settled: Outcome[] } {
  const exchange = newExchange(format, true);
  exchange.model = MODEL.id;
  exchange.admission = admission(candidates);
  const settled: Outcome[] = [];
  exchange.settleHook = async (o) => {
    settled.push(o);
    return null;
  };
  return { exchange, settled };
}

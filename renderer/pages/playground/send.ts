import { createParser } from 'eventsource-parser';
import { errorMessage, type Wire } from './wires.js';

export interface SendResult {
  requestId: string | null;
  status: number;
  error?: string;
}

/**
 * Sends one prompt and feeds the reply's text to `onText` as it arrives. Resolves when the reply
 * is complete (or failed); `signal` aborts it, which the gateway bills up to what was produced.
 */
export async function send(
  wire: Wire,
  args: Parameters<Wire['request']>[0],
  onText: (t: string) => void,
  signal: AbortSignal,
): Promise<SendResult> {
  const { url, init } = wire.request(args);
  const res = await fetch(url, { ...init, signal });
  const requestId = res.headers.get('x-request-id');
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) {
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: the status says enough
    }
    return { requestId, status: res.status, error: errorMessage(body, res.status) };
  }
  if (!type.includes('text/event-stream')) {
    onText(wire.text((await res.json()) as Record<string, unknown>));
    return { requestId, status: res.status };
  }
  let streamError: string | undefined;
  const parser = createParser({
    onEvent: (ev) => {
      if (ev.data === '[DONE]') return;
      try {
        const data = JSON.parse(ev.data) as Record<string, unknown>;
        if (ev.event === 'error' || data.type === 'error' || (data.error && typeof data.error === 'object'))
          streamError = errorMessage(data, res.status);
        const t = wire.delta(data);
        if (t) onText(t);
      } catch {
        // A keep-alive or a line that is not JSON carries no text.
      }
    },
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(value);
  }
  return { requestId, status: res.status, ...(streamError ? { error: streamError } : {}) };
}

/**
 * A tiny HTTP server on 127.0.0.1:0 that answers the official @google/genai SDK with whatever a
 * test gives it (our encoders' output), written chunk by chunk as Tollgate would.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GoogleGenAI } from '@google/genai';

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** Written one by one, each flushed before the next. */
  chunks: string[];
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const c of req) text += String(c);
  return text === '' ? undefined : JSON.parse(text);
}

/** Runs `use` with an SDK client whose base URL is the stub; `answer` decides each reply. */
export async function withSdk<T>(
  answer: (seen: Seen) => Answer | Promise<Answer>,
  use: (ai: GoogleGenAI, seen: Seen[]) => Promise<T>,
): Promise<T> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const s: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: await readBody(req) };
      seen.push(s);
      const a = await answer(s);
      res.writeHead(a.status ?? 200, { 'content-type': 'application/json', ...a.headers });
      for (const c of a.chunks) {
        res.write(c);
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const ai = new GoogleGenAI({
      apiKey: 'x',
      httpOptions: { baseUrl: `http://127.0.0.1:${port}`, retryOptions: { attempts: 1 } },
    });
    return await use(ai, seen);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

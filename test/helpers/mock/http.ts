/**
 * Writing replies for the mock upstream: whole JSON bodies and event streams, with the scenario's failure
 * modes (malformed, drop-after, chunk-delay) applied in one place so every wire format fails the same way.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleepTimer } from 'node:timers/promises';
import type { Scenario } from './scenario.js';

export type Json = Record<string, any>;

/** One request and its response, as the wire-format handlers see it. */
export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The query string of the request URL. */
  query: URLSearchParams;
  scenario: Scenario;
  signal: AbortSignal;
  /** Set when the mock cuts the connection on purpose, so it is not counted as a client abort. */
  dropped: boolean;
  requestId: string;
  /** Counters shared by the mock's requests, for the fault tests. */
  stats: MockStats;
}

export interface MockStats {
  /** Bytes written by `endless` streams so far. */
  endlessBytes: number;
  /** `endless` streams waiting now for their reader to drain what was written (backpressure). */
  waitingForDrain: number;
}

/** Writes a vendor-shaped error body; each wire format module exports one. */
export type ErrorWriter = (ex: Exchange, status: number, message: string, headers?: Record<string, string>) => void;

export interface SseFrame {
  event?: string;
  data: string;
}

/**
 * How a stream is framed: `sse` is `event:`/`data:` lines; `json-array` is Gemini's streamGenerateContent without
 * `alt=sse`, one JSON array written element by element.
 */
export type StreamFraming = 'sse' | 'json-array';

// setTimeout overflows above 2^31-1 ms and fires immediately, which would turn a "stall forever" into no delay.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A successful JSON reply, honouring `malformed` and `drop-after`. */
export function sendJson(ex: Exchange, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  let text = JSON.stringify(payload);
  if (ex.scenario.contentLength !== undefined) return sendLyingLength(ex, status, text, ex.scenario.contentLength);
  if (ex.scenario.malformed) text = text.slice(0, Math.ceil(text.length / 2));
  if (ex.scenario.dropAfter === undefined) return writeWhole(ex, status, text, headers);
  if (ex.signal.aborted) return;
  const bytes = Buffer.from(text);
  ex.res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length, ...headers });
  ex.res.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
  dropConnection(ex);
}

/**
 * Writes the response by hand on the socket, with a content-length that is not the body's: the body
 * is cut at the declared length, or ends short of it (the connection then closes, or stays open
 * with `hold-open`). Node's own writer would refuse both.
 */
function sendLyingLength(ex: Exchange, status: number, text: string, declared: number): void {
  const socket = ex.res.socket;
  if (!socket || ex.signal.aborted) return;
  ex.dropped = true;
  const body = Buffer.from(text).subarray(0, declared);
  socket.write(`HTTP/1.1 ${status} OK\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`);
  socket.write(body);
  if (!ex.scenario.holdOpen) socket.end(() => socket.destroy());
}

/** An HTML page with status 200, where the vendor's JSON or stream was expected. */
export function sendHtml(ex: Exchange): void {
  if (ex.signal.aborted) return;
  const page =
    '<!DOCTYPE html><html><head><title>Sign in to the network</title></head><body><h1>Please sign in</h1></body></html>';
  ex.res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(page) });
  ex.res.end(page);
}

/** A JSON body sent as is: errors use this, so `malformed` and `drop-after` never garble them. */
export function writeWhole(ex: Exchange, status: number, text: string, headers: Record<string, string>): void {
  if (ex.signal.aborted || ex.res.headersSent) return;
  const bytes = Buffer.from(text);
  ex.res.writeHead(status, { 'content-type': 'application/json', 'content-length': bytes.length, ...headers });
  ex.res.end(bytes);
}

/**
 * Streams `frames`, one write each, flushed. `malformed` inserts a truncated copy of the second frame
 * (of frame N with `malformed-at=N`);
 * `drop-after=N` cuts the connection after N frames; `first-chunk-delay` pauses before the first frame and
 * `chunk-delay` before every other one.
 */
export async function sendStream(
  ex: Exchange,
  frames: SseFrame[],
  headers: Record<string, string>,
  framing: StreamFraming = 'sse',
): Promise<void> {
  const { malformed, malformedAt = 1, dropAfter, chunkDelayMs, firstChunkDelayMs } = ex.scenario;
  const next = frames[malformedAt];
  if (malformed && next)
    frames.splice(malformedAt, 0, { ...next, data: next.data.slice(0, Math.ceil(next.data.length / 2)) });
  if (ex.signal.aborted) return;
  const contentType = framing === 'sse' ? 'text/event-stream; charset=utf-8' : 'application/json; charset=UTF-8';
  ex.res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-cache', ...headers });
  ex.res.flushHeaders();
  if (ex.scenario.endless) return sendEndless(ex, frames, framing);
  for (const [i, frame] of frames.entries()) {
    if (dropAfter !== undefined && i >= dropAfter) return dropConnection(ex);
    if (!(await sleep(i === 0 ? firstChunkDelayMs : chunkDelayMs, ex.signal))) return;
    if (ex.signal.aborted) return;
    if (framing === 'sse') ex.res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`);
    else ex.res.write(`${i === 0 ? '[' : ',\r\n'}${frame.data}`);
  }
  if (dropAfter !== undefined && dropAfter >= frames.length) return dropConnection(ex);
  ex.res.end(framing === 'json-array' ? (frames.length ? ']' : '[]') : undefined);
}

/**
 * The stream's opening events, then its middle event (a content delta, given a reply of a dozen
 * words or more) again and again until the reader goes away, waiting for the socket to drain
 * whenever the reader is behind, as a well-behaved server does.
 */
async function sendEndless(ex: Exchange, frames: SseFrame[], framing: StreamFraming): Promise<void> {
  const middle = Math.floor(frames.length / 2);
  const encode = (frame: SseFrame, i: number): string =>
    framing === 'sse'
      ? `${frame.event ? `event: ${frame.event}\n` : ''}data: ${frame.data}\n\n`
      : `${i === 0 ? '[' : ',\r\n'}${frame.data}`;
  for (let i = 0; !ex.signal.aborted; i++) {
    const chunk = encode(frames[Math.min(i, middle)]!, i);
    ex.stats.endlessBytes += Buffer.byteLength(chunk);
    if (!ex.res.write(chunk)) {
      ex.stats.waitingForDrain++;
      await new Promise((resolve) => {
        ex.res.once('drain', resolve);
        ex.res.once('close', resolve);
      });
      ex.stats.waitingForDrain--;
    }
    if (!(await sleep(ex.scenario.chunkDelayMs, ex.signal))) return;
  }
}

/** Ends the TCP connection without finishing the HTTP message, after flushing what was written. */
export function dropConnection(ex: Exchange): void {
  ex.dropped = true;
  const socket = ex.res.socket;
  if (!socket) return;
  socket.end(() => socket.destroy());
}

/** Resolves to the raw body, or undefined if the client aborted while sending it. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    return undefined;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parsed JSON, or the raw string when the body is not JSON ('' when empty). */
export function parseBody(raw: string): unknown {
  try {
    return raw === '' ? '' : JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Resolves true after `ms`, or false as soon as the response is closed (timer cleared). */
export async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await sleepTimer(Math.min(ms, MAX_TIMER_MS), undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function randomId(length: number): string {
  return Array.from(randomBytes(length), (b) => ID_ALPHABET[b % ID_ALPHABET.length]).join('');
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

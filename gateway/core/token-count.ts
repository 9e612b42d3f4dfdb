import type { CanonicalRequest, ContentBlock, MediaSource } from './canonical.js';
import { countTokens } from './tokenizer.js';

/** Framing tokens per message (role markers and separators), as chat formats add them. */
const TOKENS_PER_MESSAGE = 4;
/** Images whose size cannot be read (URLs, unknown formats) count as a typical 1092×1092 image. */
const DEFAULT_IMAGE_TOKENS = 1_600;
/** Anthropic documents image cost as about width × height / 750 tokens, after scaling to ≤ 1568 px on the long side. */
const PIXELS_PER_TOKEN = 750;
const MAX_SIDE = 1568;

/**
 * Counts a canonical prompt with a real BPE tokenizer (o200k_base): system, messages, tool calls
 * and results, tool definitions; images by their pixel size where the bytes say it. Vendors whose
 * tokenizer is not public (Claude, Gemini) differ from o200k by a roughly constant factor, which
 * the caller corrects with a calibration from recent upstream-reported counts. The count runs in
 * the tokenizer's thread (core/tokenizer.ts); `signal` abandons it.
 */
export async function countPromptTokens(
  req: CanonicalRequest,
  signal?: AbortSignal,
  count: (text: string, signal?: AbortSignal) => Promise<number> = countTokens,
): Promise<number> {
  const texts: string[] = [];
  let fixed = 0;
  for (const b of req.system) texts.push(b.text);
  for (const m of req.messages) {
    fixed += TOKENS_PER_MESSAGE;
    for (const b of m.content) fixed += collect(b, texts);
  }
  if (req.tools.length > 0)
    texts.push(
      JSON.stringify(req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }))),
    );
  return fixed + (await count(texts.join('\n'), signal));
}

/** Pushes a block's countable text; returns tokens counted without the tokenizer (images). */
function collect(b: ContentBlock, texts: string[]): number {
  switch (b.type) {
    case 'text':
      texts.push(b.text);
      return 0;
    case 'thinking':
      texts.push(b.text);
      return 0;
    case 'redacted_thinking':
    case 'compaction':
      return Math.ceil(b.data.length / 4);
    case 'tool_call':
      texts.push(b.name, JSON.stringify(b.input));
      return 0;
    case 'tool_result': {
      let n = 0;
      for (const c of b.content) n += collect(c, texts);
      return n;
    }
    case 'image':
      return imageTokens(b.source);
    case 'document':
      if (b.source.kind === 'text') {
        texts.push(b.source.data);
        return 0;
      }
      // A PDF costs its text plus an image per page. Without parsing it, assume a page per 50 kB
      // of file and 1,500 tokens a page.
      return b.source.kind === 'base64'
        ? Math.max(1, Math.ceil((b.source.data.length * 0.75) / 50_000)) * 1_500
        : DEFAULT_IMAGE_TOKENS;
    default:
      return 0;
  }
}

export function imageTokens(source: MediaSource): number {
  if (source.kind !== 'base64') return DEFAULT_IMAGE_TOKENS;
  const size = imageSize(Buffer.from(source.data.slice(0, 64 * 1024), 'base64'));
  if (!size) return DEFAULT_IMAGE_TOKENS;
  let { width, height } = size;
  const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
  width = Math.round(width * scale);
  height = Math.round(height * scale);
  return Math.max(1, Math.ceil((width * height) / PIXELS_PER_TOKEN));
}

/** Width and height from the header of a PNG, GIF, WebP or JPEG. */
export function imageSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47)
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString('ascii', 0, 3) === 'GIF')
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString('ascii', 0, 4) === 'RIFF' && b.toString('ascii', 8, 12) === 'WEBP') {
    const kind = b.toString('ascii', 12, 16);
    if (kind === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (kind === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (kind === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
    }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      const len = b.readUInt16BE(i + 2);
      // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}

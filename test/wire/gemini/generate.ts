/** Random values of what Gemini can carry, for the round-trip tests: words, text blocks, JSON, schemas, media. */
import type { ContentBlock, TextBlock } from '../../../gateway/core/canonical.js';
import type { Rng } from '../../helpers/seeded.js';

type R = Rng;

const WORDS = [
  'hello',
  'naïve café',
  '你好',
  '🙂 emoji',
  'line\nbreak',
  'quote "q"',
  'back\\slash',
  'tab\there',
  '{"json":1}',
  'data: x',
  '  spaced  ',
];
export const text = (r: R): string => r.many(1, 4, () => r.pick(WORDS)).join(' ');
export const textBlock = (r: R): TextBlock =>
  r.chance(0.2)
    ? { type: 'text', text: text(r), cacheControl: { type: 'ephemeral' } }
    : { type: 'text', text: text(r) };

function json(r: R, depth = 0): unknown {
  const kind = r.int(0, depth > 2 ? 3 : 5);
  if (kind === 0) return text(r);
  if (kind === 1) return r.int(-1000, 1000) / (r.chance(0.5) ? 1 : 8);
  if (kind === 2) return r.chance(0.5);
  if (kind === 3) return null;
  if (kind === 4) return r.many(0, 3, () => json(r, depth + 1));
  return object(r, depth + 1);
}
export const object = (r: R, depth = 0): Record<string, unknown> =>
  Object.fromEntries(r.many(0, 3, () => [r.pick(['a', 'path', 'ünï', 'deep key', 'x']) + r.int(0, 9), json(r, depth)]));
export const schema = (r: R): Record<string, unknown> => ({
  type: 'object',
  properties: Object.fromEntries(
    r.many(0, 3, () => [
      r.pick(['path', 'n', 'type', 'nullable']) + r.int(0, 9),
      r.chance(0.5)
        ? { type: r.pick(['string', 'integer']) }
        : { type: 'array', items: { type: 'string' }, description: text(r) },
    ]),
  ),
});

export const PNG = { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
export function media(r: R): ContentBlock {
  const n = r.int(0, 3);
  if (n === 0)
    return r.chance(0.5)
      ? { type: 'image', source: PNG, detail: 'low' }
      : { type: 'image', source: { ...PNG, mediaType: 'image/jpeg' } };
  if (n === 1) return { type: 'image', source: { kind: 'url', url: 'https://example.com/i.png' } };
  if (n === 2)
    return {
      type: 'document',
      source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' },
      title: 'doc.pdf',
    };
  return { type: 'document', source: { kind: 'file', fileId: 'files/abc' } };
}

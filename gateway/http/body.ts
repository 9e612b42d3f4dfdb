import fp from 'fastify-plugin';
import { GatewayError } from '../core/errors.js';
import { invalidUtf8Offset } from '../core/input.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as received, decoded as UTF-8 ('' when there was none). */
    rawBody: string;
    /**
     * The same body as its bytes (null when there was none): the pass-through sends them upstream
     * when it changes nothing, rather than encoding `rawBody` to UTF-8 again.
     */
    rawBytes: Buffer | null;
  }
}

/**
 * 32 MB: the most Anthropic's Messages API takes (it answers 413 beyond), and room for several
 * images inlined as base64 on the other APIs. A larger body would be refused upstream anyway,
 * after a slow upload; refusing it here is the same answer, sooner, on every interface alike.
 */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

/** The admin API takes small JSON objects only. */
export const ADMIN_BODY_LIMIT = 1024 * 1024;

/** What a body over the limit is told (Fastify refuses it while reading; errors.ts answers it). */
export function bodyTooLarge(limit: number): GatewayError {
  const mb = Math.round((limit / 1024 / 1024) * 10) / 10;
  return new GatewayError(
    'invalid_request',
    `The request body is larger than ${mb} MB, the most Tollgate forwards (upstream APIs refuse larger ones). Send fewer or smaller images and documents, or shorten the conversation.`,
    {
      code: 'body_too_large',
      status: 413,
    },
  );
}

/** Reads a body as bytes and refuses one that is not UTF-8, naming where, instead of replacing the bytes. */
export function decodeBody(buf: Buffer): string {
  const text = buf.toString('utf8');
  // Decoding replaces every byte that is not UTF-8 with U+FFFD, so a text without one came from
  // well-formed bytes: only a text holding U+FFFD (which a one-byte string cannot) is checked byte
  // by byte, and most bodies get one pass instead of two.
  if (!text.includes('\uFFFD')) return text;
  const at = invalidUtf8Offset(buf);
  if (at >= 0) {
    throw new GatewayError(
      'invalid_request',
      `The request body is not valid UTF-8: byte ${at} (0x${buf[at]!.toString(16).padStart(2, '0')}) does not start or continue a UTF-8 character. Send JSON encoded as UTF-8.`,
      {
        code: 'invalid_utf8',
      },
    );
  }
  return text;
}

/**
 * Body parsing for every route (model and admin): bodies are kept as received (for the prompt
 * estimate and pass-through) and parsed once. Any content type is read as JSON: some clients omit
 * or mislabel it. The size limit is Fastify's `bodyLimit` (server.ts, and per admin route).
 */
export const bodyParsing = fp(
  async (app) => {
    app.decorateRequest('rawBody', '');
    app.decorateRequest('rawBytes', null);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) => {
      let text: string;
      try {
        text = decodeBody(body as Buffer);
      } catch (err) {
        done(err as Error, undefined);
        return;
      }
      req.rawBody = text;
      req.rawBytes = body as Buffer;
      if (text.length === 0) {
        done(null, undefined);
        return;
      }
      try {
        done(null, JSON.parse(text));
      } catch (err) {
        (err as SyntaxError & { statusCode?: number }).statusCode = 400;
        done(err as Error, undefined);
      }
    });
  },
  { name: 'tollgate-body-parsing', fastify: '5.x' },
);

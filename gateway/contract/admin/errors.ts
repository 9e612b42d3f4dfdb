/**
 * A refused admin operation: status and a message meant for the person at the CLI or console.
 * The server throws it and answers `{error: {code, message}}`; the client (client.ts) rebuilds
 * it from that answer, so callers on both sides catch one class.
 */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'AdminError';
  }
}

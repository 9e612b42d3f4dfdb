/** A refused admin operation: status and a message meant for the person at the CLI or console. */
export class AdminError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

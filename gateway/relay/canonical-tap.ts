import type { StreamEvent } from '../core/canonical.js';
import { upstreamMalformed, type GatewayError } from '../core/errors.js';
import type { Usage } from '../core/usage.js';
import type { CallSignal } from '../upstream/client.js';
import { ClientClosedError, maskError, upstreamFailure } from '../upstream/errors.js';

/** Follows a canonical stream: the final usage, what was produced, and how it ended. */
export class CanonicalTap {
  /** The final usage, from the stop event. */
  usage: Usage | undefined;
  usageEstimated = false;
  /** The usage the start event announced: the prompt as the upstream reported it early, or as estimated. */
  startUsage: Usage | undefined;
  produced = '';
  failure: GatewayError | null = null;
  /** Called when the stop event has been read, before it is passed on. */
  beforeStop: (() => Promise<void>) | undefined;
  /** Called when the stream failed, before the error event is passed on: it ends the answer too. */
  beforeFailure: ((error: GatewayError) => Promise<void>) | undefined;

  /** `secrets`: the line's credentials, masked out of an in-band error before the client or the row sees it. */
  constructor(private readonly secrets: readonly string[] = []) {}

  async *watch(events: AsyncIterable<StreamEvent>, signal: CallSignal): AsyncGenerator<StreamEvent> {
    let started = false;
    try {
      for await (const ev of events) {
        started = true;
        switch (ev.type) {
          case 'text_delta':
          case 'thinking_delta':
            this.produced += ev.text;
            break;
          case 'tool_args_delta':
            this.produced += ev.json;
            break;
          case 'block_start':
            if (ev.block.type === 'tool_call') this.produced += ev.block.name;
            break;
          case 'start':
            this.startUsage = ev.usage;
            break;
          case 'stop':
            this.usage = ev.usage;
            this.usageEstimated = ev.usageEstimated === true;
            await this.beforeStop?.();
            break;
          case 'error': {
            const error = maskError(ev.error, this.secrets);
            this.failure = error;
            await this.beforeFailure?.(error);
            yield { type: 'error', error };
            continue;
          }
          default:
            break;
        }
        yield ev;
      }
    } catch (err) {
      // The upstream broke mid-stream (dropped, malformed, timed out): the client gets its
      // protocol's error event; the caller bills what was produced.
      const error =
        err instanceof SyntaxError
          ? upstreamMalformed('the upstream sent a stream event that is not valid JSON.')
          : upstreamFailure(err, signal);
      if (error.code === 'client_closed') throw new ClientClosedError();
      // Before the first event nothing has reached the client: let the caller try another line.
      if (!started) throw error;
      this.failure = error;
      await this.beforeFailure?.(error);
      yield { type: 'error', error };
    }
  }
}

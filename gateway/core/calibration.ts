import type { CanonicalRequest } from './canonical.js';
import { countPromptTokens } from './token-count.js';
import { tokenizerLoaded } from './tokenizer.js';
import { promptTokens, type Usage } from './usage.js';

/**
 * Per-model correction from o200k counts to what the upstream reports, learnt from requests whose
 * usage the upstream gave: a running average of reported / counted, so count_tokens answers in the
 * model's own tokens without a public tokenizer.
 */
export class Calibration {
  private readonly ratios = new Map<string, { ratio: number; samples: number }>();

  /** Vendor defaults before any sample: Claude's tokenizer yields ~15% more tokens than o200k on English and code. */
  constructor(private readonly defaults: (model: string) => number = (m) => (m.startsWith('claude') ? 1.15 : 1)) {}

  factor(model: string): number {
    return this.ratios.get(model)?.ratio ?? this.defaults(model);
  }

  record(model: string, counted: number, reported: number): void {
    if (counted < 20 || reported <= 0) return; // tiny prompts are mostly framing noise
    const r = reported / counted;
    if (r < 0.3 || r > 3) return; // a mismatch this large means the prompt differed (cache, hidden system text)
    const cur = this.ratios.get(model);
    if (!cur) this.ratios.set(model, { ratio: r, samples: 1 });
    else {
      const weight = Math.min(cur.samples, 19);
      this.ratios.set(model, { ratio: (cur.ratio * weight + r) / (weight + 1), samples: cur.samples + 1 });
    }
  }

  apply(model: string, counted: number): number {
    return Math.max(1, Math.round(counted * this.factor(model)));
  }
}

/**
 * Tokenizer counts made to learn a model's correction: every one at first, then one in a hundred.
 * The correction is a running average over about twenty samples of a ratio that hardly moves for
 * one model, while each sample costs a pass of the BPE tokenizer over a whole prompt (for a coding
 * agent, hundreds of kilobytes) on the gateway's own cores: one in ten cost the request path about
 * a tenth of its CPU (docs/performance.md).
 */
const TOKENIZER_WARMUP = 5;
const TOKENIZER_EVERY = 100;

/**
 * The gateway's two token calibrations, learnt from every answer whose usage the upstream
 * reported, whatever the wire formats on either side:
 * - the cheap byte estimate made at admission (core/estimate.ts) → reported prompt tokens: the
 *   figure a translated stream announces at its start, before the upstream's own;
 * - the o200k tokenizer count → reported prompt tokens: what count_tokens answers and what a
 *   request without reported usage is billed, in the model's own tokens, although Claude's and
 *   Gemini's tokenizers are not public.
 * One instance per gateway; nothing here is module state.
 */
export class TokenCalibration {
  private readonly estimate = new Calibration(() => 0.75);
  private readonly tokenizer = new Calibration();
  private readonly counted = new Map<string, number>();
  /** A calibration count is under way: the next sample waits for another answer rather than queueing behind it. */
  private counting = false;

  /** The admission's byte estimate, corrected for the model. */
  promptFromEstimate(model: string, estimatedTokens: number): number {
    return this.estimate.apply(model, estimatedTokens);
  }

  /**
   * A canonical prompt in the model's own tokens: o200k, corrected for the model. `count` is the
   * thread that counts: billing's unless a client asked (core/client-tokenizer.ts).
   */
  async countPrompt(
    model: string,
    req: CanonicalRequest,
    signal?: AbortSignal,
    count?: (text: string, signal?: AbortSignal) => Promise<number>,
  ): Promise<number> {
    return this.tokenizer.apply(model, await countPromptTokens(req, signal, count));
  }

  /**
   * Learns from an answer the upstream reported usage for. The byte ratio is cheap and learnt
   * every time. The tokenizer ratio costs a tokenizer pass over the prompt, so it is learnt only
   * once the tokenizer is loaded (count_tokens was used, or a count was needed), on a sample, one
   * at a time (a sample never waits in the tokenizer's queue, where counts that bill wait too), and
   * after the answer has gone out.
   */
  learn(model: string, estimatedTokens: number, usage: Usage, prompt: () => CanonicalRequest): void {
    const reported = promptTokens(usage);
    this.estimate.record(model, estimatedTokens, reported);
    if (!tokenizerLoaded()) return;
    const n = (this.counted.get(model) ?? 0) + 1;
    this.counted.set(model, n);
    if (this.counting || (n > TOKENIZER_WARMUP && n % TOKENIZER_EVERY !== 0)) return;
    this.counting = true;
    setImmediate(() => {
      let req: CanonicalRequest;
      try {
        req = prompt();
      } catch {
        // A prompt the decoder cannot read (a pass-through body only its own format knows) is not a sample.
        this.counting = false;
        return;
      }
      void countPromptTokens(req)
        .then((counted) => this.tokenizer.record(model, counted, reported))
        .catch(() => undefined)
        .finally(() => (this.counting = false));
    });
  }
}

import { maxUsageTokens, promptSide, usageProblem, type Usage } from '../core/usage.js';
import type { Exchange } from './exchange.js';

/** What an answer said about its usage, as a path (pass-through or translation) read it. */
export interface UsageReport {
  /** The upstream's final figures, when the answer carried them. */
  final: Usage | undefined;
  /** Prompt figures the upstream sent before its answer was complete (Anthropic's message_start), for an answer cut short. */
  prompt?: Usage | undefined;
  /** What the model produced: counted when there are no final figures to bill. */
  produced(): string;
}

/** Tollgate's own counts, for when an upstream's figures are missing or unusable. */
export interface UsageCounter {
  /** The prompt, in the model's tokens. */
  prompt(): Promise<Usage>;
  /** Text the model produced. */
  output(text: string): Promise<number>;
}

/**
 * The upstream's final figures when they can be billed as they are: what billableUsage answers in
 * the usual case, without its promise, so a caller that has them awaits nothing; undefined when
 * they are missing or refused (then billableUsage judges them, notes why, and counts).
 */
export function acceptedUsage(
  ex: Exchange,
  final: Usage | undefined,
): { usage: Usage; usageEstimated: false } | undefined {
  if (!final) return undefined;
  const bound = ex.admission ? maxUsageTokens(ex.admission.model) : undefined;
  return usageProblem(final, bound ?? Number.MAX_SAFE_INTEGER) ? undefined : { usage: final, usageEstimated: false };
}

/**
 * The one place where usage figures from an upstream are judged before they are billed, for every
 * path and format: the final figures when they are whole, non-negative and within what the model
 * can read and write (core/usage.ts usageProblem); otherwise Tollgate's count, marked estimated,
 * with a note on the exchange saying why. An answer cut short (no final figures: Esc in the
 * client, an upstream drop, a timeout) is billed for what was produced: the prompt as the
 * upstream reported it early, or as counted, plus the produced output counted.
 */
export async function billableUsage(
  ex: Exchange,
  report: UsageReport,
  counter: UsageCounter,
): Promise<{ usage: Usage; usageEstimated: boolean }> {
  const bound = ex.admission ? maxUsageTokens(ex.admission.model) : undefined;
  const problem = (u: Usage): string | undefined => usageProblem(u, bound ?? Number.MAX_SAFE_INTEGER);
  if (report.final) {
    const why = problem(report.final);
    if (!why) return { usage: report.final, usageEstimated: false };
    ex.notes.push(`upstream usage refused (${why}): counted by Tollgate`);
  }
  let prompt: Usage | undefined;
  if (report.prompt) {
    const early = promptSide(report.prompt);
    const why = problem(early);
    if (why) ex.notes.push(`upstream prompt usage refused (${why}): counted by Tollgate`);
    else prompt = early;
  }
  prompt ??= promptSide(await counter.prompt());
  return { usage: { ...prompt, outputTokens: await counter.output(report.produced()) }, usageEstimated: true };
}

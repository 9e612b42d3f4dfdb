/**
 * Anthropic API versions (`anthropic-version`) and what each refuses, for translated requests
 * (docs/protocols.md §2.1). The pass-through sends the client's own version and betas unchanged;
 * a translated request goes with its line's version, or the default, and loses what that version
 * refuses, with a note per field.
 */
import type { TargetLine } from '../../core/codec.js';

/**
 * The version a line speaks when it sets none. 2023-06-01 is the one every Anthropic-compatible
 * service takes (DeepSeek's, Kimi's and OpenRouter's Messages endpoints among them) and Anthropic
 * still serves; a line on Anthropic itself may be set to a newer one.
 */
export const ANTHROPIC_VERSION = '2023-06-01';

/** The first version that refuses sampling fields, documents in assistant turns and citations on user text. */
export const V2026_10_21 = '2026-10-21';

/** What a version refuses that older ones took. */
export interface VersionRules {
  version: string;
  /** `temperature`, `top_p` and `top_k` are refused even at their defaults. */
  noSampling: boolean;
  /** A `document` block in an assistant message is refused. */
  noAssistantDocuments: boolean;
  /** A user text block with non-empty `citations` is refused. */
  noUserCitations: boolean;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function versionRules(line?: TargetLine): VersionRules {
  const version = line?.anthropicVersion?.trim() || ANTHROPIC_VERSION;
  // Versions are dates, so a later one compares greater; anything else is read as the old rules.
  const strict = DATE.test(version) && version >= V2026_10_21;
  return { version, noSampling: strict, noAssistantDocuments: strict, noUserCitations: strict };
}

/** The note for a field or block a version refuses. */
export function refusedNote(rules: VersionRules, what: string): string {
  return `anthropic: dropped ${what}: anthropic-version ${rules.version} refuses it`;
}

/**
 * The flags of `lines add` and `lines update` that say how the line talks to its vendor: vendor
 * quirks (`--quirk NAME=VALUE`; `NAME=none` clears one a served model's vendor data asks for;
 * on update `NAME=model` takes the line's own word away) and the Anthropic API version of
 * translated requests (`--anthropic-version`).
 */
import { type Command, InvalidArgumentError } from 'commander';
import type { UpdateLineBody } from '../contract/admin/index.js';
import { QUIRK_NAMES, QUIRK_VALUES, isQuirkValue, type LineQuirks } from '../contract/quirks.js';

/** Quirks as the flags give them: a value, null (cleared), or `model` (the line's own word taken away). */
type QuirkFlags = Record<string, string | null>;

export interface LineFlags {
  quirk?: QuirkFlags;
  /** A date, or `default` (update only): back to the default. */
  anthropicVersion?: string;
}

const QUIRK_HELP = QUIRK_NAMES.map((k) => `${k}=${QUIRK_VALUES[k].join('|')}|none`).join(', ');

/** One `--quirk NAME=VALUE`, added to those before it. */
function quirk(update: boolean) {
  return (value: string, previous: QuirkFlags | undefined): QuirkFlags => {
    const [name, v] = value.split('=', 2) as [string, string | undefined];
    if (!(QUIRK_NAMES as string[]).includes(name) || v === undefined)
      throw new InvalidArgumentError(`--quirk takes NAME=VALUE, one of: ${QUIRK_HELP}.`);
    if (v !== 'none' && !(update && v === 'model') && !isQuirkValue(name, v))
      throw new InvalidArgumentError(
        `${name} takes ${QUIRK_VALUES[name as keyof typeof QUIRK_VALUES].join(', ')} or none (cleared)${update ? ', or model (the model decides)' : ''}.`,
      );
    return { ...previous, [name]: v === 'none' ? null : v };
  };
}

/** The line's quirks with the flags' over them (`model` takes one away): the whole map an update sends. */
export function quirksFrom(own: LineQuirks, flags: QuirkFlags): LineQuirks {
  const out: Record<string, string | null> = { ...own };
  for (const [k, v] of Object.entries(flags)) {
    if (v === 'model') delete out[k];
    else out[k] = v;
  }
  return out as LineQuirks;
}

function version(allowDefault: boolean) {
  // `default` stays a word here: commander does not keep a null a parser returns.
  return (v: string): string => {
    if (allowDefault && v === 'default') return v;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(v)))
      throw new InvalidArgumentError(
        `--anthropic-version takes a date, YYYY-MM-DD (2023-06-01, 2026-10-21)${allowDefault ? ', or default' : ''}.`,
      );
    return v;
  };
}

export function lineFlagOptions(cmd: Command, update: boolean): Command {
  return cmd
    .option(
      '--quirk <name=value>',
      `a vendor quirk of this line, over what its models' vendor data asks for (repeatable; none clears one${update ? ", model takes the line's own word away" : ''}): ${QUIRK_HELP}`,
      quirk(update),
    )
    .option(
      '--anthropic-version <date>',
      `anthropic lines: the anthropic-version of translated requests (default 2023-06-01)${update ? '; default goes back to it' : ''}`,
      version(update),
    );
}

/** The body fields the flags give; on update, `own` is the line's quirks now, which the flags change. */
export function lineFlagsBody(o: LineFlags, own?: LineQuirks): Pick<UpdateLineBody, 'quirks' | 'anthropicVersion'> {
  return {
    ...(o.quirk ? { quirks: quirksFrom(own ?? {}, o.quirk) } : {}),
    ...(o.anthropicVersion !== undefined
      ? { anthropicVersion: o.anthropicVersion === 'default' ? null : o.anthropicVersion }
      : {}),
  };
}

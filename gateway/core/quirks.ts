/**
 * Vendor request quirks (the table is contract/quirks.ts, which the admin API and the console share):
 * flags a preset or a catalogue model sets, a line keeps or overrides, and the upstream side of a
 * wire format honours.
 */
import { QUIRK_NAMES, type LineQuirks, type QuirkName, type Quirks } from '../contract/quirks.js';

export {
  QUIRK_NAMES,
  QUIRK_VALUES,
  isQuirkValue,
  type LineQuirks,
  type QuirkName,
  type Quirks,
} from '../contract/quirks.js';

/**
 * The quirks a request to one line for one model goes with: what the model's upstream needs
 * (its catalogue entry's vendor data, whichever line serves it), then the line's own settings
 * over them. A DeepSeek model behind a company proxy made without the DeepSeek preset still gets
 * its reasoning back; a line can still turn any of it off.
 */
export function effectiveQuirks(model: Quirks | undefined, line: LineQuirks | undefined): Quirks {
  if (!line) return model ?? {};
  if (!model) {
    let clean = true;
    for (const k in line) if (line[k as QuirkName] === null) clean = false;
    if (clean) return line as Quirks;
  }
  const out: Record<string, unknown> = { ...model };
  for (const k of QUIRK_NAMES) {
    if (!(k in line)) continue;
    const v = line[k];
    if (v === null) delete out[k];
    else if (v !== undefined) out[k] = v;
  }
  return out as Quirks;
}

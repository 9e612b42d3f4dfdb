import { QUIRK_FORMAT, QUIRK_NAMES, QUIRK_VALUES, type LineQuirks } from '../../../gateway/contract/quirks.js';
import type { LineView } from '../../lib/api.js';
import { Field } from '../../components/ui.js';

/** What each quirk is for, in a few words. */
const QUIRK_LABEL: Record<(typeof QUIRK_NAMES)[number], string> = {
  maxTokensField: 'Output limit field',
  reasoningField: 'Reasoning sent back in',
  structuredOutput: 'Native structured output',
};

/** The select's value for a quirk: `model` (no word of the line's own), `none` (cleared), or a value. */
const choice = (q: LineQuirks, k: keyof LineQuirks): string => (!(k in q) ? 'model' : (q[k] ?? 'none'));

/**
 * How the line talks to its vendor: its own word on each quirk of its wire format (over what the
 * served models' vendor data asks for), and, for an anthropic line, the `anthropic-version` of
 * translated requests. Controlled: the edit dialog owns the values.
 */
export function VendorFields({
  line,
  quirks,
  version,
  onQuirks,
  onVersion,
}: {
  line: LineView;
  quirks: LineQuirks;
  version: string;
  onQuirks(q: LineQuirks): void;
  onVersion(v: string): void;
}) {
  const names = QUIRK_NAMES.filter((k) => QUIRK_FORMAT[k] === line.protocol);
  const set = (k: keyof LineQuirks, v: string): void => {
    const next: Record<string, string | null> = { ...quirks };
    if (v === 'model') delete next[k];
    else next[k] = v === 'none' ? null : v;
    onQuirks(next as LineQuirks);
  };
  return (
    <>
      {names.length > 0 ? (
        <div className="form-grid">
          {names.map((k) => (
            <Field
              key={k}
              label={QUIRK_LABEL[k]}
              htmlFor={`edit-quirk-${k}`}
              hint="What the model needs, unless set here."
            >
              <select id={`edit-quirk-${k}`} value={choice(quirks, k)} onChange={(e) => set(k, e.target.value)}>
                <option value="model">as the model needs</option>
                {QUIRK_VALUES[k].map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
                <option value="none">off</option>
              </select>
            </Field>
          ))}
        </div>
      ) : null}
      {line.protocol === 'anthropic' ? (
        <Field
          label="Anthropic API version"
          htmlFor="edit-anthropic-version"
          hint="Sent with translated requests (YYYY-MM-DD); 2026-10-21 drops temperature, top_p and top_k. The pass-through keeps the client's own."
        >
          <input
            id="edit-anthropic-version"
            className="mono"
            pattern="\d{4}-\d{2}-\d{2}"
            value={version}
            onChange={(e) => onVersion(e.target.value)}
          />
        </Field>
      ) : null}
    </>
  );
}

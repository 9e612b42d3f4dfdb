/** The settings a key has besides its name (group, quota, expiry, limits, session guards): one form part and one parser for create and edit. */
import type { KeyView } from '../../lib/api.js';
import { Field } from '../../components/ui.js';
import { tryParseUsd, usdDigits } from '../../../gateway/contract/money.js';
import { date } from '../../lib/format.js';
import { useGroups } from '../../lib/queries.js';
import { EMPTY_GUARDS, GuardFields, guardsOf, parseGuards, type Guards, type GuardsForm } from './session-guards.js';

export interface SettingsForm {
  group: string;
  quota: string;
  expires: string;
  rpm: string;
  concurrent: string;
  guards: GuardsForm;
}

export const EMPTY_SETTINGS: SettingsForm = {
  group: 'default',
  quota: '',
  expires: '',
  rpm: '',
  concurrent: '',
  guards: EMPTY_GUARDS,
};

/** A key's settings as the form shows them. */
export function settingsOf(k: KeyView): SettingsForm {
  return {
    group: k.group,
    quota: k.quotaMicro === null ? '' : usdDigits(k.quotaMicro),
    expires: k.expiresAt ? date(k.expiresAt) : '',
    rpm: k.rpm === null ? '' : String(k.rpm),
    concurrent: k.maxConcurrent === null ? '' : String(k.maxConcurrent),
    guards: guardsOf(k),
  };
}

export interface Settings extends Guards {
  group: string;
  quotaMicro: number | null;
  expiresAt: string | null;
  rpm: number | null;
  maxConcurrent: number | null;
}

function optionalInt(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
}

/** The settings for the admin API, or what is wrong with them in words. */
export function parseSettings(f: SettingsForm): Settings | string {
  const quotaMicro = f.quota.trim() === '' ? null : tryParseUsd(f.quota);
  if (quotaMicro === undefined) return 'Quota: a dollar amount such as 5 or 12.50, or empty for none.';
  const rpm = optionalInt(f.rpm);
  const maxConcurrent = optionalInt(f.concurrent);
  if (rpm === undefined || maxConcurrent === undefined) return 'Limits: whole numbers of 1 or more, or empty for none.';
  // The end of the chosen day, local time.
  const expiresAt = f.expires ? new Date(`${f.expires}T23:59:59`).toISOString() : null;
  if (expiresAt && Date.parse(expiresAt) <= Date.now()) return 'Expiry: pick a date in the future.';
  const guards = parseGuards(f.guards);
  if (typeof guards === 'string') return guards;
  return { group: f.group, quotaMicro, expiresAt, rpm, maxConcurrent, ...guards };
}

/** A new key's settings: the session guards left empty are left out (a new key has none of them). */
export function forCreate(s: Settings) {
  const { sessionCapMicro, budgets, loopLimit, project, ...rest } = s;
  const set = Object.fromEntries(Object.entries(budgets).filter(([, v]) => v !== null)) as Record<string, number>;
  return {
    ...rest,
    ...(sessionCapMicro !== null ? { sessionCapMicro } : {}),
    ...(Object.keys(set).length > 0 ? { budgets: set } : {}),
    ...(loopLimit !== null ? { loopLimit } : {}),
    ...(project !== null ? { project } : {}),
  };
}

export function SettingsFields({
  form,
  onChange,
  idPrefix,
  keyName,
}: {
  form: SettingsForm;
  onChange(f: SettingsForm): void;
  idPrefix: string;
  keyName: string;
}) {
  const groups = useGroups();
  const set = (k: keyof SettingsForm) => (e: { target: { value: string } }) =>
    onChange({ ...form, [k]: e.target.value });
  return (
    <>
      <Field
        label="Group"
        htmlFor={`${idPrefix}-group`}
        hint="Decides which models the key may use and the price multiplier."
      >
        <select id={`${idPrefix}-group`} value={form.group} onChange={set('group')}>
          {(groups.data ?? [{ name: 'default', multiplier: '1', models: ['*'] }]).map((g) => (
            <option key={g.name} value={g.name}>
              {g.name} (×{g.multiplier}, {g.models.includes('*') ? 'all models' : `${g.models.length} models`})
            </option>
          ))}
        </select>
      </Field>
      <div className="form-grid">
        <Field label="Quota (USD)" htmlFor={`${idPrefix}-quota`} hint="Spending cap; empty for none.">
          <input
            id={`${idPrefix}-quota`}
            inputMode="decimal"
            autoComplete="off"
            placeholder="none"
            value={form.quota}
            onChange={set('quota')}
          />
        </Field>
        <Field label="Expires" htmlFor={`${idPrefix}-expires`} hint="End of that day; empty for never.">
          <input id={`${idPrefix}-expires`} type="date" value={form.expires} onChange={set('expires')} />
        </Field>
        <Field label="Requests per minute" htmlFor={`${idPrefix}-rpm`}>
          <input
            id={`${idPrefix}-rpm`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="no limit"
            value={form.rpm}
            onChange={set('rpm')}
          />
        </Field>
        <Field label="At once" htmlFor={`${idPrefix}-concurrent`} hint="Requests in flight.">
          <input
            id={`${idPrefix}-concurrent`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="no limit"
            value={form.concurrent}
            onChange={set('concurrent')}
          />
        </Field>
      </div>
      <GuardFields
        form={form.guards}
        onChange={(guards) => onChange({ ...form, guards })}
        idPrefix={idPrefix}
        keyName={keyName}
      />
    </>
  );
}

/** The settings a key has besides its name (group, quota, expiry, limits, session guards): one form part and one parser for create and edit. */
import type { KeyView } from '../../lib/api.js';
import { Field } from '../../components/ui.js';
import { tryParseUsd, usd, usdDigits } from '../../../gateway/contract/money.js';
import type { FieldErrors, FieldWords } from '../../lib/field-errors.js';
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

/** The end of the chosen day, local time. */
function endOfDay(day: string): string {
  return new Date(`${day}T23:59:59`).toISOString();
}

/**
 * The form read once: the settings for the admin API (null when a field cannot be read), and what is
 * wrong, at the body's fields the form shows them by (`quotaMicro`, `expiresAt`, `rpm`,
 * `maxConcurrent`, `guards`); no problems when everything can be sent.
 */
export function readSettings(f: SettingsForm): { settings: Settings | null; problems: FieldErrors } {
  const problems: FieldErrors = {};
  const quotaMicro = f.quota.trim() === '' ? null : tryParseUsd(f.quota);
  if (quotaMicro === undefined)
    problems.quotaMicro = 'Enter a dollar amount such as 5 or 12.50, or leave it empty for no quota.';
  const rpm = optionalInt(f.rpm);
  if (rpm === undefined) problems.rpm = 'Enter a whole number of 1 or more, or leave it empty.';
  const maxConcurrent = optionalInt(f.concurrent);
  if (maxConcurrent === undefined) problems.maxConcurrent = 'Enter a whole number of 1 or more, or leave it empty.';
  const expiresAt = f.expires ? endOfDay(f.expires) : null;
  if (expiresAt && Date.parse(expiresAt) <= Date.now()) problems.expiresAt = 'Pick a date in the future.';
  const guards = parseGuards(f.guards);
  if (typeof guards === 'string') problems.guards = guards;
  const settings =
    quotaMicro === undefined || rpm === undefined || maxConcurrent === undefined || typeof guards === 'string'
      ? null
      : { group: f.group, quotaMicro, expiresAt, rpm, maxConcurrent, ...guards };
  return { settings, problems };
}

const BODY_FIELD: Record<keyof SettingsForm, string> = {
  group: 'group',
  quota: 'quotaMicro',
  expires: 'expiresAt',
  rpm: 'rpm',
  concurrent: 'maxConcurrent',
  guards: 'guards',
};

/** The body fields whose form field differs between two states of the form (their messages go). */
export function changedFields(before: SettingsForm, after: SettingsForm): string[] {
  return (Object.keys(BODY_FIELD) as (keyof SettingsForm)[])
    .filter((k) => before[k] !== after[k])
    .map((k) => BODY_FIELD[k]);
}

/** The words the contract's schema check uses for the key form's fields. */
export const KEY_WORDS: Record<string, FieldWords> = {
  name: { label: 'name', pattern: 'letters, digits and . _ @ -, starting with a letter or digit' },
  group: { label: 'group' },
  quotaMicro: { label: 'the quota', bound: (n) => usd(n) },
  expiresAt: { label: 'the expiry' },
  rpm: { label: 'requests per minute' },
  maxConcurrent: { label: 'requests at once' },
  sessionCapMicro: { label: 'the session cap', bound: (n) => usd(n) },
  budgets: { label: 'a budget', bound: (n) => usd(n) },
  loopLimit: { label: 'the loop limit' },
  project: { label: 'the project label' },
};

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
  errorAt = () => undefined,
}: {
  form: SettingsForm;
  onChange(f: SettingsForm): void;
  idPrefix: string;
  keyName: string;
  /** The message at a body field (`quotaMicro`, `rpm`…), from the form's check or the gateway's refusal. */
  errorAt?: (field: string) => string | undefined;
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
        error={errorAt('group')}
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
        <Field
          label="Quota (USD)"
          htmlFor={`${idPrefix}-quota`}
          hint="Spending cap; empty for none."
          error={errorAt('quotaMicro')}
        >
          <input
            id={`${idPrefix}-quota`}
            inputMode="decimal"
            autoComplete="off"
            placeholder="none"
            value={form.quota}
            onChange={set('quota')}
          />
        </Field>
        <Field
          label="Expires"
          htmlFor={`${idPrefix}-expires`}
          hint="End of that day; empty for never."
          error={errorAt('expiresAt')}
        >
          <input id={`${idPrefix}-expires`} type="date" value={form.expires} onChange={set('expires')} />
        </Field>
        <Field label="Requests per minute" htmlFor={`${idPrefix}-rpm`} error={errorAt('rpm')}>
          <input
            id={`${idPrefix}-rpm`}
            inputMode="numeric"
            autoComplete="off"
            placeholder="no limit"
            value={form.rpm}
            onChange={set('rpm')}
          />
        </Field>
        <Field
          label="At once"
          htmlFor={`${idPrefix}-concurrent`}
          hint="Requests in flight."
          error={errorAt('maxConcurrent')}
        >
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

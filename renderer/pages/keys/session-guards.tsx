/**
 * A key's agent-session guards (docs/sessions.md) in the key form: the session cap, budgets over
 * rolling windows, the loop limit and the project label. Each field says what is wrong with it as
 * it is typed; the parser turns the fields into the admin API's key fields (an empty field clears).
 */
import type { KeyView } from '../../lib/api.js';
import { Field } from '../../components/ui.js';
import { tryParseUsd, usd, usdDigits } from '../../../gateway/contract/money.js';
import { DEFAULT_LOOP_LIMIT, WINDOW_IDS, type BudgetWindow } from '../../../gateway/contract/sessions.js';

export interface GuardsForm {
  cap: string;
  budgets: Record<BudgetWindow, string>;
  loop: string;
  project: string;
}

export const EMPTY_GUARDS: GuardsForm = {
  cap: '',
  budgets: { '5h': '', '1d': '', '7d': '', '30d': '' },
  loop: '',
  project: '',
};

export function guardsOf(k: KeyView): GuardsForm {
  const budgets = { ...EMPTY_GUARDS.budgets };
  for (const w of WINDOW_IDS) if (k.budgets[w] !== undefined) budgets[w] = usdDigits(k.budgets[w]);
  return {
    cap: k.sessionCapMicro === null ? '' : usdDigits(k.sessionCapMicro),
    budgets,
    loop: String(k.loopLimit),
    project: k.project ?? '',
  };
}

/** The key fields the guards set; null clears a field (back to no cap, no budget, the default loop limit, the key's name). */
export interface Guards {
  sessionCapMicro: number | null;
  budgets: Record<BudgetWindow, number | null>;
  loopLimit: number | null;
  project: string | null;
}

const WINDOW_NAMES: Record<BudgetWindow, string> = { '5h': '5 hours', '1d': '1 day', '7d': '7 days', '30d': '30 days' };
const AMOUNT = 'a dollar amount above 0 such as 5 or 12.50, or empty for none';

function amount(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const micro = tryParseUsd(text);
  return micro === undefined || micro === 0 ? undefined : micro;
}

function loopLimit(text: string): number | null | undefined {
  if (text.trim() === '') return null;
  const n = Number(text);
  return /^\s*\d+\s*$/.test(text) && n <= 1000 ? n : undefined;
}

/** What is wrong with each field, by field (`cap`, `5h`…, `loop`, `project`); empty when nothing. */
export function guardProblems(f: GuardsForm): Partial<Record<'cap' | 'loop' | 'project' | BudgetWindow, string>> {
  const out: Partial<Record<'cap' | 'loop' | 'project' | BudgetWindow, string>> = {};
  if (amount(f.cap) === undefined) out.cap = `Session cap: ${AMOUNT}.`;
  for (const w of WINDOW_IDS)
    if (amount(f.budgets[w]) === undefined) out[w] = `Budget per ${WINDOW_NAMES[w]}: ${AMOUNT}.`;
  if (loopLimit(f.loop) === undefined) out.loop = 'Loop limit: a whole number from 0 (off) to 1000.';
  const p = f.project.trim();
  if (p.length > 128 || /[^\x20-\x7e]/.test(p)) out.project = 'Project: at most 128 printable ASCII characters.';
  return out;
}

/** The guards for the admin API, or the first thing wrong with them in words. */
export function parseGuards(f: GuardsForm): Guards | string {
  const problem = Object.values(guardProblems(f))[0];
  if (problem) return problem;
  const budgets = Object.fromEntries(WINDOW_IDS.map((w) => [w, amount(f.budgets[w])!])) as Guards['budgets'];
  return {
    sessionCapMicro: amount(f.cap)!,
    budgets,
    loopLimit: loopLimit(f.loop)!,
    project: f.project.trim() === '' ? null : f.project.trim(),
  };
}

/** The guards in a few words for the keys list: "cap $5.00 · 1d $20.00 · loop guard off · project web". */
export function guardsSummary(k: KeyView): string {
  const parts: string[] = [];
  if (k.sessionCapMicro !== null) parts.push(`cap ${usd(k.sessionCapMicro)}`);
  for (const w of WINDOW_IDS) if (k.budgets[w] !== undefined) parts.push(`${w} ${usd(k.budgets[w])}`);
  if (k.loopLimit !== DEFAULT_LOOP_LIMIT) parts.push(k.loopLimit === 0 ? 'loop guard off' : `loop ${k.loopLimit}`);
  if (k.project !== null) parts.push(`project ${k.project}`);
  return parts.length === 0 ? 'none' : parts.join(' · ');
}

function Problem({ id, text }: { id: string; text: string | undefined }) {
  return text ? (
    <p id={id} className="field-error" role="alert">
      {text}
    </p>
  ) : null;
}

export function GuardFields({
  form,
  onChange,
  idPrefix,
  keyName,
}: {
  form: GuardsForm;
  onChange(f: GuardsForm): void;
  idPrefix: string;
  keyName: string;
}) {
  const problems = guardProblems(form);
  const input = (id: string, value: string, set: (v: string) => void, bad: string | undefined, placeholder: string) => (
    <input
      id={id}
      autoComplete="off"
      placeholder={placeholder}
      value={value}
      aria-invalid={bad !== undefined}
      aria-describedby={bad ? `${id}-problem` : undefined}
      onChange={(e) => set(e.target.value)}
    />
  );
  return (
    <fieldset className="field key-guards">
      <legend>Agent sessions</legend>
      <div className="form-grid">
        <Field label="Session cap (USD)" htmlFor={`${idPrefix}-cap`} hint="What one session may spend; then it pauses.">
          {input(`${idPrefix}-cap`, form.cap, (cap) => onChange({ ...form, cap }), problems.cap, 'no cap')}
          <Problem id={`${idPrefix}-cap-problem`} text={problems.cap} />
        </Field>
        <Field
          label="Loop limit"
          htmlFor={`${idPrefix}-loop`}
          hint={`Repeats of one tool round that pause a session; 0 off, empty ${DEFAULT_LOOP_LIMIT}.`}
        >
          {input(
            `${idPrefix}-loop`,
            form.loop,
            (loop) => onChange({ ...form, loop }),
            problems.loop,
            String(DEFAULT_LOOP_LIMIT),
          )}
          <Problem id={`${idPrefix}-loop-problem`} text={problems.loop} />
        </Field>
      </div>
      <div className="form-grid key-budgets">
        {WINDOW_IDS.map((w) => (
          <Field key={w} label={`Budget per ${WINDOW_NAMES[w]}`} htmlFor={`${idPrefix}-budget-${w}`}>
            {input(
              `${idPrefix}-budget-${w}`,
              form.budgets[w],
              (v) => onChange({ ...form, budgets: { ...form.budgets, [w]: v } }),
              problems[w],
              'none',
            )}
            <Problem id={`${idPrefix}-budget-${w}-problem`} text={problems[w]} />
          </Field>
        ))}
      </div>
      <Field label="Project" htmlFor={`${idPrefix}-project`} hint="Sessions count under it unless a request names one.">
        {input(
          `${idPrefix}-project`,
          form.project,
          (project) => onChange({ ...form, project }),
          problems.project,
          keyName || 'the key name',
        )}
        <Problem id={`${idPrefix}-project-problem`} text={problems.project} />
      </Field>
    </fieldset>
  );
}

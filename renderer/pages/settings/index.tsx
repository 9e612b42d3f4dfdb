import { useState, type FormEvent } from 'react';
import { AdminError, admin, type SettingsView } from '../../lib/api.js';
import { UpdateSettingsBody } from '../../../gateway/contract/admin/schemas.js';
import { useFormErrors } from '../../components/use-form.js';
import type { FieldErrors, FieldWords } from '../../lib/field-errors.js';
import { Confirm } from '../../components/dialog.js';
import { ErrorNote, Field, PageHeader, Switch } from '../../components/ui.js';
import { tryParseUsd, usd, usdDigits } from '../../../gateway/contract/money.js';
import { qk, useSettings } from '../../lib/queries.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useToast } from '../../components/toast.js';
import { ApplyNote } from './apply.js';
import { TrustSection } from './trust.js';
import './settings.css';

interface Draft {
  host: string;
  port: string;
  retentionDays: string;
  storeBodies: boolean;
  storeResponses: boolean;
  lowBalance: string;
  caFile: string;
  systemCa: boolean;
}

function draftOf(s: SettingsView): Draft {
  return {
    host: s.host,
    port: String(s.port),
    retentionDays: s.retentionDays === null ? '' : String(s.retentionDays),
    storeBodies: s.storeBodies,
    storeResponses: s.storeResponses,
    lowBalance: s.lowBalanceMicro === null ? '' : usdDigits(s.lowBalanceMicro),
    caFile: s.caFile ?? '',
    systemCa: s.systemCa,
  };
}

const WORDS: Record<string, FieldWords> = {
  host: {
    label: 'the bind address',
    required: 'Enter an address to bind, such as 127.0.0.1.',
    pattern: 'An address is an IP such as 127.0.0.1 or ::1, or a host name, without spaces or a port.',
  },
  port: { label: 'the port', pattern: 'The port is a whole number from 1 to 65535.' },
  retentionDays: { label: 'retention (days)' },
  lowBalanceMicro: { label: 'the low-balance threshold', bound: (n) => usd(n) },
  caFile: { label: 'the CA file path' },
};

/**
 * What changed, as the PATCH body, and what text cannot even become a value (the contract's
 * schema checks the rest: useFormErrors).
 */
function changes(d: Draft, s: SettingsView): { body: UpdateSettingsBody; own: FieldErrors } {
  const out: UpdateSettingsBody = {};
  const own: FieldErrors = {};
  const port = Number(d.port);
  if (d.port.trim() === '' || !Number.isInteger(port)) own.port = 'The port is a whole number from 1 to 65535.';
  const days = d.retentionDays.trim() === '' ? null : Number(d.retentionDays);
  if (days !== null && !Number.isInteger(days))
    own.retentionDays = 'Retention is a whole number of days, at least 1 (empty keeps every row).';
  const low = d.lowBalance.trim() === '' ? null : tryParseUsd(d.lowBalance);
  if (low === undefined)
    own.lowBalanceMicro = 'The low-balance threshold is an amount in dollars, such as 5 or 0.50 (empty: no warning).';
  if (d.host.trim() !== s.host) out.host = d.host.trim();
  if (port !== s.port) out.port = port;
  if (days !== s.retentionDays) out.retentionDays = days;
  if (d.storeBodies !== s.storeBodies) out.storeBodies = d.storeBodies;
  if (d.storeResponses !== s.storeResponses) out.storeResponses = d.storeResponses;
  if (low !== undefined && low !== s.lowBalanceMicro) out.lowBalanceMicro = low;
  const caFile = d.caFile.trim() === '' ? null : d.caFile.trim();
  if (caFile !== s.caFile) out.caFile = caFile;
  if (d.systemCa !== s.systemCa) out.systemCa = d.systemCa;
  return { body: out, own };
}

/** The body field each draft field becomes, where the names differ. */
const FIELD_OF_DRAFT: Partial<Record<keyof Draft, string>> = { lowBalance: 'lowBalanceMicro' };

export function Settings() {
  const settings = useSettings();
  return (
    <>
      <PageHeader
        title="Settings"
        subtitle="Stored in the data dir's config.json; the gateway and the desktop tray read them."
      />
      {settings.data ? <SettingsForm s={settings.data} /> : <ErrorNote error={settings.error} />}
    </>
  );
}

function SettingsForm({ s }: { s: SettingsView }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(s));
  const [problem, setProblem] = useState<string | null>(null);
  const [lanAsk, setLanAsk] = useState<UpdateSettingsBody | null>(null);
  const qc = useQueryClient();
  const toast = useToast();
  // Not useAction: the gateway's refusal of a LAN bind opens the confirmation instead of a toast.
  const save = useMutation({
    mutationFn: (body: UpdateSettingsBody) => admin.call('updateSettings', { body }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: qk.settings });
      toast.show('Settings saved.');
    },
    onError: (err) => {
      if (!(err instanceof AdminError && err.code === 'lan_confirmation_required'))
        toast.show((err as Error).message, 'error');
    },
  });

  const form = useFormErrors(UpdateSettingsBody, WORDS);
  const send = (body: UpdateSettingsBody): void => {
    save.mutate(body, {
      onSuccess: (next) => setDraft(draftOf(next)),
      onError: (err) => {
        if (err instanceof AdminError && err.code === 'lan_confirmation_required') setLanAsk(body);
      },
    });
  };
  const submit = (e: FormEvent): void => {
    e.preventDefault();
    const { body, own } = changes(draft, s);
    setProblem(null);
    if (!form.check(body, own)) return;
    if (Object.keys(body).length === 0) return setProblem('Nothing changed.');
    send(body);
  };
  const set = <K extends keyof Draft>(k: K, v: Draft[K]): void => {
    form.clear(FIELD_OF_DRAFT[k] ?? k);
    setDraft((d) => ({ ...d, [k]: v }));
  };

  return (
    <>
      <form className="settings-form" onSubmit={submit} aria-label="Settings" noValidate>
        <section className="panel" aria-labelledby="net-title">
          <div className="panel-head">
            <h2 id="net-title">Network</h2>
            <span className="muted">
              listening now on <code>{s.listening}</code>
            </span>
          </div>
          <div className="panel-pad form">
            <div className="form-grid">
              <Field
                label="Bind address"
                htmlFor="set-host"
                error={form.at('host')}
                hint="127.0.0.1 keeps the gateway on this machine."
              >
                <input
                  id="set-host"
                  autoComplete="off"
                  spellCheck={false}
                  value={draft.host}
                  onChange={(e) => set('host', e.target.value)}
                />
              </Field>
              <Field label="Port" htmlFor="set-port" error={form.at('port')}>
                <input
                  id="set-port"
                  inputMode="numeric"
                  autoComplete="off"
                  value={draft.port}
                  onChange={(e) => set('port', e.target.value)}
                />
              </Field>
            </div>
            <ApplyNote s={s} />
            {s.lan ? (
              <p className="warning" role="note">
                Set to {s.host}: after the next start, other machines on your network can reach the model API (keys are
                still required; the admin API and this console stay loopback-only).
              </p>
            ) : null}
          </div>
        </section>
        <section className="panel" aria-labelledby="data-title">
          <div className="panel-head">
            <h2 id="data-title">Data kept</h2>
          </div>
          <div className="panel-pad form">
            <Field
              label="Keep usage-log rows for (days)"
              htmlFor="set-retention"
              error={form.at('retentionDays')}
              hint="Empty keeps every row. Older rows are pruned at start and hourly; their costs stay in daily totals, so the balance, spend and charts still add up."
            >
              <input
                id="set-retention"
                inputMode="numeric"
                autoComplete="off"
                placeholder="keep every row"
                value={draft.retentionDays}
                onChange={(e) => set('retentionDays', e.target.value)}
              />
            </Field>
            <div className="setting-row">
              <Switch
                label="Store request bodies"
                checked={draft.storeBodies}
                onChange={(v) => set('storeBodies', v)}
              />
              <div>
                <strong>Store request bodies</strong>
                <p className="field-hint">
                  Keeps each prompt as sent, shown in the usage log's details. Off by default; turning it off deletes
                  the bodies kept.
                </p>
              </div>
            </div>
            <div className="setting-row">
              <Switch
                label="Store Responses conversations"
                checked={draft.storeResponses}
                onChange={(v) => set('storeResponses', v)}
              />
              <div>
                <strong>Store Responses conversations</strong>
                <p className="field-hint">
                  Lets clients of the Responses API continue with previous_response_id when they ask to store. Turning
                  it off deletes them.
                </p>
              </div>
            </div>
          </div>
        </section>
        <section className="panel" aria-labelledby="wallet-title">
          <div className="panel-head">
            <h2 id="wallet-title">Wallet</h2>
          </div>
          <div className="panel-pad form">
            <Field
              label="Warn below (USD)"
              htmlFor="set-low"
              error={form.at('lowBalanceMicro')}
              hint="The Overview and Wallet pages and the tray warn when the balance is below this. Empty: never."
            >
              <input
                id="set-low"
                inputMode="decimal"
                autoComplete="off"
                placeholder="no warning"
                value={draft.lowBalance}
                onChange={(e) => set('lowBalance', e.target.value)}
              />
            </Field>
          </div>
        </section>
        <TrustSection
          s={s}
          caFile={draft.caFile}
          systemCa={draft.systemCa}
          onCaFile={(v) => set('caFile', v)}
          onSystemCa={(v) => set('systemCa', v)}
          caFileError={form.at('caFile')}
        />
        {problem ? (
          <p className="error-note" role="alert">
            {problem}
          </p>
        ) : null}
        {save.error && !(save.error instanceof AdminError && save.error.code === 'lan_confirmation_required') ? (
          <ErrorNote error={save.error} />
        ) : null}
        <div className="settings-actions">
          <button type="button" className="button" onClick={() => (setDraft(draftOf(s)), setProblem(null))}>
            Revert
          </button>
          <button type="submit" className="button button-primary" disabled={save.isPending}>
            Save changes
          </button>
        </div>
      </form>
      <Confirm
        open={lanAsk !== null}
        onOpenChange={(open) => !open && setLanAsk(null)}
        title="Expose the gateway to your network?"
        confirmLabel="Bind to the network"
        busy={save.isPending}
        onConfirm={() => {
          if (lanAsk) send({ ...lanAsk, allowLan: true });
          setLanAsk(null);
        }}
      >
        Binding to {lanAsk?.host} lets other machines on your network send requests to the model API, billed to your
        wallet: anyone with one of your keys, on any machine that can reach this one. The admin API and this console
        stay loopback-only. It applies at the next start.
      </Confirm>
    </>
  );
}

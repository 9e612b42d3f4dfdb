/**
 * Upstream TLS: certificate authorities trusted besides the built-in ones, for upstreams behind a
 * TLS-inspecting proxy (gateway/upstream/trust.ts). The desktop app cannot take
 * NODE_EXTRA_CA_CERTS, so this is where its users add a CA; `tollgate serve` reads the same.
 */
import type { SettingsView } from '../../lib/api.js';
import { Field, Switch } from '../../components/ui.js';

export function TrustSection({
  s,
  caFile,
  systemCa,
  onCaFile,
  onSystemCa,
  caFileError,
}: {
  s: SettingsView;
  caFile: string;
  /** What is wrong with the CA file path, at its field. */
  caFileError?: string;
  systemCa: boolean;
  onCaFile(v: string): void;
  onSystemCa(v: boolean): void;
}) {
  return (
    <section className="panel" aria-labelledby="tls-title">
      <div className="panel-head">
        <h2 id="tls-title">Upstream TLS</h2>
        <span className="muted" data-testid="ca-added">
          {s.caAdded > 0
            ? `${s.caAdded} ${s.caAdded === 1 ? 'certificate' : 'certificates'} trusted besides the built-in ones`
            : 'built-in certificate authorities only'}
        </span>
      </div>
      <div className="panel-pad form">
        <Field
          label="CA file (PEM)"
          htmlFor="set-ca-file"
          error={caFileError}
          hint="Behind a proxy that inspects TLS, the path of its CA certificate (one or more, PEM). Added to the built-in authorities, never instead of them; checked when saved, used by new connections at once. Empty: none. The desktop app ignores NODE_EXTRA_CA_CERTS: this is where it takes a CA."
        >
          <input
            id="set-ca-file"
            autoComplete="off"
            spellCheck={false}
            placeholder="/path/to/company-ca.pem"
            value={caFile}
            onChange={(e) => onCaFile(e.target.value)}
          />
        </Field>
        <div className="setting-row">
          <Switch
            label="Trust the system certificate store"
            checked={systemCa}
            disabled={!s.systemCaAvailable && !systemCa}
            onChange={onSystemCa}
          />
          <div>
            <strong>Trust the system certificate store</strong>
            <p className="field-hint">
              {s.systemCaAvailable
                ? 'Also trusts the authorities the operating system trusts (where IT departments install their CA).'
                : "This gateway's runtime cannot read the system store (Node 22.15 or later can; the desktop app's can). Export the CA to a PEM file instead."}
            </p>
          </div>
        </div>
        {s.caProblem ? (
          <p className="warning" role="note" data-testid="ca-problem">
            Not in force: {s.caProblem}
          </p>
        ) : null}
      </div>
    </section>
  );
}

/**
 * Where a line's upstream key comes from: the OS keychain (write-only), an environment variable of
 * the gateway, or none. Where there is no keychain, that choice is disabled with the reason, known
 * before the dialog opened (GET /api/lines/key-storage). Used when adding and when editing a line.
 */
export type KeyMode = 'keychain' | 'env' | 'none';

const LABELS: Record<KeyMode, string> = {
  keychain: 'Store in the OS keychain',
  env: 'Environment variable',
  none: 'No key (local server)',
};

export function KeySourceField({
  mode,
  onMode,
  apiKey,
  onApiKey,
  apiKeyEnv,
  onApiKeyEnv,
  keychainReason,
  error,
  keepHint,
}: {
  mode: KeyMode;
  onMode(m: KeyMode): void;
  apiKey: string;
  onApiKey(v: string): void;
  apiKeyEnv: string;
  onApiKeyEnv(v: string): void;
  /** Why the keychain cannot be used here; null when it can. */
  keychainReason: string | null;
  error?: string | undefined;
  /** Editing a line whose key is in the keychain: an empty field keeps it. */
  keepHint?: boolean;
}) {
  const invalid = error ? { 'aria-invalid': true, 'aria-describedby': 'line-key-error' } : {};
  return (
    <fieldset className={error ? 'field field-invalid' : 'field'}>
      <legend>API key</legend>
      <div className="radio-row">
        {(['keychain', 'env', 'none'] as const).map((m) => (
          <label key={m} className={m === 'keychain' && keychainReason ? 'check check-disabled' : 'check'}>
            <input
              type="radio"
              name="key-mode"
              checked={mode === m}
              disabled={m === 'keychain' && keychainReason !== null}
              onChange={() => onMode(m)}
            />
            {LABELS[m]}
          </label>
        ))}
      </div>
      {keychainReason ? <p className="field-hint">{keychainReason}</p> : null}
      {mode === 'keychain' ? (
        <>
          <input
            id="line-key"
            type="password"
            aria-label="API key"
            placeholder={keepHint ? 'leave empty to keep the stored key' : "paste the provider's API key"}
            value={apiKey}
            onChange={(e) => onApiKey(e.target.value)}
            {...invalid}
          />
          <p className="field-hint">Write-only: Tollgate hands it to the OS keychain and never shows it again.</p>
        </>
      ) : mode === 'env' ? (
        <>
          <input
            id="line-env"
            aria-label="Environment variable"
            className="mono"
            placeholder="OPENAI_API_KEY"
            value={apiKeyEnv}
            onChange={(e) => onApiKeyEnv(e.target.value)}
            {...invalid}
          />
          <p className="field-hint">Read from the gateway's environment at each request.</p>
        </>
      ) : null}
      {error ? (
        <p className="field-error" id="line-key-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

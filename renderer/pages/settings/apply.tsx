/**
 * The truth about host and port: they apply when the gateway starts. Inside the desktop app the
 * page can restart the app's gateway (the bridge), and the window reopens on the new address; in
 * a browser it says to restart `tollgate serve`.
 */
import { useState } from 'react';
import type { SettingsView } from '../../lib/api.js';
import { desktopBridge } from './desktop.js';

const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);

/** Whether the saved host or port differ from where the gateway listens now (a wildcard listens on 127.0.0.1 too). */
export function bindPending(s: SettingsView): boolean {
  const now = new URL(s.listening);
  const want = WILDCARDS.has(s.host) ? '127.0.0.1' : s.host.replace(/^\[|\]$/g, '');
  return Number(now.port) !== s.port || now.hostname.replace(/^\[|\]$/g, '') !== want;
}

/** One address, not loopback and not every address: the app's console could not reach it. */
function singleLanAddress(s: SettingsView): boolean {
  return s.lan && !WILDCARDS.has(s.host);
}

export function ApplyNote({ s }: { s: SettingsView }) {
  const desktop = desktopBridge();
  const [state, setState] = useState<{ busy: boolean; problem: string | null; restarting: boolean }>({
    busy: false,
    problem: null,
    restarting: false,
  });
  const restart = async (): Promise<void> => {
    if (!desktop) return;
    setState({ busy: true, problem: null, restarting: false });
    try {
      const answer = await desktop.restartGateway();
      setState({ busy: false, problem: answer.restarting ? null : answer.reason, restarting: answer.restarting });
    } catch (err) {
      setState({ busy: false, problem: (err as Error).message, restarting: false });
    }
  };
  if (!desktop)
    return (
      <>
        <p className="field-hint">
          Address and port apply at the next start of the gateway (a --host or --port flag overrides them).
        </p>
        {bindPending(s) ? (
          <p className="warning" role="note" data-testid="bind-pending">
            Saved {s.host}:{s.port}; the gateway still listens on {s.listening}. Restart tollgate serve to apply it.
          </p>
        ) : null}
      </>
    );
  return (
    <>
      <p className="field-hint">
        Address and port apply when the app restarts its gateway. Coding tools keep the address they were connected
        with: connect them again after a port change.
      </p>
      {singleLanAddress(s) ? (
        <p className="warning" role="note">
          The app binds 127.0.0.1 instead of {s.host}: its console reaches the gateway on this machine's loopback only.
          0.0.0.0 serves both the network and this machine.
        </p>
      ) : null}
      {bindPending(s) ? (
        <div className="warning" role="note" data-testid="bind-pending">
          <p>
            Saved {s.host}:{s.port}; the gateway still listens on {s.listening}.
          </p>
          {state.restarting ? (
            <p>Restarting the gateway; this window opens again on the new address.</p>
          ) : (
            <button type="button" className="button" disabled={state.busy} onClick={() => void restart()}>
              Restart the gateway now
            </button>
          )}
        </div>
      ) : null}
      {state.problem ? (
        <p className="error-note" role="alert">
          {state.problem}
        </p>
      ) : null}
    </>
  );
}

import { isLoggedOut } from '../../lib/api.js';
import './login.css';

/**
 * Shown when there is no session. The console cannot log itself in: a login link comes from
 * whoever holds the admin token (the CLI, the serve banner, the desktop app).
 */
export function Login({ error }: { error?: unknown }) {
  const expired = new URLSearchParams(window.location.search).get('login') === 'expired';
  const unreachable = error !== undefined && !isLoggedOut(error);
  return (
    <main className="login">
      <div className="login-card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            T
          </span>
          <span className="brand-name">Tollgate</span>
        </div>
        <h1>{unreachable ? 'The gateway does not answer' : 'Log in to the console'}</h1>
        {unreachable ? (
          <p role="alert">{(error as Error).message}</p>
        ) : (
          <>
            {expired ? (
              <p className="error-note" role="alert">
                That login link was already used or has expired (links last two minutes and work once).
              </p>
            ) : null}
            <p>The console opens from a one-time login link. In a terminal on this machine, run:</p>
            <pre className="code-block">npx tollgate open</pre>
            <p className="muted">
              It prints a fresh link and opens it in your browser. <code>tollgate serve</code> prints one when it
              starts, and the Tollgate app logs in by itself.
            </p>
          </>
        )}
      </div>
    </main>
  );
}

import { useEffect, useState } from 'react';
import { Route, Routes } from 'react-router';
import { isLoggedOut } from './lib/api.js';
import { Layout } from './components/layout.js';
import { useStatus } from './lib/queries.js';
import { LOGGED_OUT_EVENT } from './lib/session-events.js';
import { Login } from './pages/login/index.js';
import { Overview } from './pages/overview/index.js';
import { Wallet } from './pages/wallet/index.js';
import { Keys } from './pages/keys/index.js';
import { Logs } from './pages/logs/index.js';
import { Sessions } from './pages/sessions/index.js';
import { Models } from './pages/models/index.js';
import { Lines } from './pages/lines/index.js';
import { Groups } from './pages/groups/index.js';
import { Playground } from './pages/playground/index.js';
import { Connect } from './pages/connect/index.js';
import { Settings } from './pages/settings/index.js';

export function App() {
  const status = useStatus();
  const [loggedOut, setLoggedOut] = useState(false);
  useEffect(() => {
    const on = (): void => setLoggedOut(true);
    window.addEventListener(LOGGED_OUT_EVENT, on);
    return () => window.removeEventListener(LOGGED_OUT_EVENT, on);
  }, []);

  if (loggedOut || isLoggedOut(status.error)) return <Login />;
  if (status.isPending) return <div className="splash" aria-busy="true" />;
  if (status.error) return <Login error={status.error} />;

  return (
    <Layout>
      <Routes>
        <Route path="/" element={<Overview />} />
        <Route path="/wallet" element={<Wallet />} />
        <Route path="/keys" element={<Keys />} />
        <Route path="/logs" element={<Logs />} />
        <Route path="/sessions" element={<Sessions />} />
        <Route path="/sessions/:id" element={<Sessions />} />
        <Route path="/models" element={<Models />} />
        <Route path="/lines" element={<Lines />} />
        <Route path="/groups" element={<Groups />} />
        <Route path="/playground" element={<Playground />} />
        <Route path="/connect" element={<Connect />} />
        <Route path="/settings" element={<Settings />} />
        <Route path="*" element={<Overview />} />
      </Routes>
    </Layout>
  );
}

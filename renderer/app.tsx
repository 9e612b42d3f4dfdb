import { useEffect, useState } from 'react';
import { Route, Routes } from 'react-router';
import { isLoggedOut } from './lib/api.js';
import { Layout } from './components/layout.js';
import { useStatus } from './lib/queries.js';
import { LOGGED_OUT_EVENT } from './lib/session-events.js';
import { Login } from './pages/login/index.js';
import { PAGES } from './pages/registry.js';

/** An unknown address shows the first page (Overview). */
const Home = PAGES[0]!.component;

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
    <Layout pages={PAGES}>
      <Routes>
        {PAGES.flatMap(({ path, subpaths = [], component: Page }) =>
          [path, ...subpaths].map((p) => <Route key={p} path={p} element={<Page />} />),
        )}
        <Route path="*" element={<Home />} />
      </Routes>
    </Layout>
  );
}

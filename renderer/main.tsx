// The tokens and element rules first, so every component's and page's own CSS comes after them.
import './styles/base.css';
import './styles/page-parts.css';
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setNonce } from 'get-nonce';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { HashRouter } from 'react-router';
import { AdminError, isLoggedOut } from './lib/api.js';
import { App } from './app.js';
import { LOGGED_OUT_EVENT } from './lib/session-events.js';
import { initTheme } from './components/theme.js';
import { ToastProvider } from './components/toast.js';
import './styles/boot-shell.css';

// The dialogs' scroll lock adds one <style> element; the CSP admits it by this response's nonce.
const nonce = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce;
if (nonce) setNonce(nonce);
initTheme();

const loggedOut = (err: unknown): void => {
  if (isLoggedOut(err)) window.dispatchEvent(new Event(LOGGED_OUT_EVENT));
};

const queryClient = new QueryClient({
  queryCache: new QueryCache({ onError: loggedOut }),
  mutationCache: new MutationCache({ onError: loggedOut }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a gateway that is restarting may.
      retry: (count, err) => !(err instanceof AdminError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ToastProvider>
        {/* Hash routes: every path on the gateway's port belongs to the model API. */}
        <HashRouter>
          <App />
        </HashRouter>
      </ToastProvider>
    </QueryClientProvider>
  </StrictMode>,
);

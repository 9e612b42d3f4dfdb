import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The saved theme (components/theme.tsx: `tollgate.theme` in localStorage, light, dark or absent for
 * the system's) set on <html> before the first paint, so the static shell in index.html and the
 * app after it are drawn in the theme the person chose. The console's CSP admits no inline script
 * (gateway/admin/console.ts, main/web-security.ts), so this is a file of its own from 'self',
 * hashed like every asset, loaded as a classic script in <head>: it blocks the first paint for the
 * few bytes it is, where a module script would run after it.
 */
const THEME_BOOT = `try{var v=localStorage.getItem('tollgate.theme');document.documentElement.dataset.theme=v==='light'||v==='dark'?v:matchMedia('(prefers-color-scheme: dark)').matches?'dark':'light'}catch(e){}`;

function themeBoot(): Plugin {
  let ref = '';
  return {
    name: 'tollgate-theme-boot',
    apply: 'build',
    buildStart() {
      ref = this.emitFile({ type: 'asset', name: 'theme-boot.js', source: `${THEME_BOOT}\n` });
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const file = Object.values(ctx.bundle ?? {}).find(
          (f) => f.type === 'asset' && (f.names ?? []).includes('theme-boot.js'),
        );
        if (!file || !ref) throw new Error('theme-boot.js was not emitted');
        return [{ tag: 'script', attrs: { src: `/${file.fileName}` }, injectTo: 'head' }];
      },
    },
  };
}

// Built into renderer/dist and served by the gateway at `/` (gateway/admin/console.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react(), themeBoot()],
  // The gateway swaps this placeholder for a fresh nonce in each response's CSP header.
  html: { cspNonce: '__CSP_NONCE__' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    target: 'es2022',
    reportCompressedSize: true,
    // One chunk by design; the budget that matters is gzipped (< 300 KB, test/admin/console.test.ts).
    chunkSizeWarningLimit: 800,
  },
  server: {
    // `npm run dev:console`: the admin API and /login come from a gateway on the default port.
    proxy: {
      '/api': 'http://127.0.0.1:4141',
      '/login': 'http://127.0.0.1:4141',
      '/v1': 'http://127.0.0.1:4141',
      '/v1beta': 'http://127.0.0.1:4141',
    },
  },
});

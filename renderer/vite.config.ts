import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Built into renderer/dist and served by the gateway at `/` (gateway/admin/console.ts).
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
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

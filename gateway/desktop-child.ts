/**
 * The entry point of the desktop app's gateway process (main/gateway-host.ts starts this file). It
 * holds V8's young generation at its starting size before anything else is parsed
 * (startup-memory.ts), then runs the gateway (desktop-gateway.ts), which gives start-up's memory
 * back once ready.
 */
import { holdYoungGeneration } from './startup-memory.js';

holdYoungGeneration();
await import('./desktop-gateway.js');

#!/usr/bin/env node
/**
 * The `tollgate` command's entry point. It holds V8's young generation at its starting size
 * before anything else is even parsed (startup-memory.ts; a static import would be parsed and
 * compiled, with everything it imports, before this file's first line runs), then loads the
 * commands (program.ts). `tollgate serve` gives start-up's memory back once ready; the other
 * commands are short-lived admin-API clients.
 */
import { holdYoungGeneration } from '../startup-memory.js';

holdYoungGeneration();
await import('./program.js');

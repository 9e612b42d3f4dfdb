/**
 * `node --import tsx test/packaged/allow-inspect.ts <executable>`: lets Playwright attach to an
 * installed Tollgate by turning on its Node inspector fuse (fuses.ts), for the release workflow's
 * packaged-app run. Never for an app a person uses: with it, anyone who can start the app can
 * attach a debugger to its main process.
 */
import { allowInspect, readFuses } from './fuses.js';

const executable = process.argv[2];
if (!executable) {
  console.error('usage: allow-inspect.ts <path to the Tollgate executable>');
  process.exit(2);
}
await allowInspect(executable);
const now = await readFuses(executable);
console.log(`fuses of ${executable} now: ${JSON.stringify(now)}`);
if (now.enableNodeCliInspectArguments !== 'on') {
  console.error('the inspector fuse is still off');
  process.exit(1);
}

/**
 * A full garbage collection from inside a test, for tests that check what a request still holds (a WeakRef
 * to it is cleared only once nothing else does). The test runner starts node without --expose-gc; the flag
 * set at run time gives a fresh context its `gc`.
 */
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Collects garbage once the current job's WeakRef targets are no longer kept alive (the next macrotask). */
export async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

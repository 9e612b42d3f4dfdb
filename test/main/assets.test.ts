import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { trayIconFile, type TrayIconState } from '../../main/tray-icon.js';
import { REPO } from '../helpers/gateway.js';

const ASSETS = join(REPO, 'assets');

/** Width, height and colour type from a PNG's IHDR chunk. */
function png(path: string): { width: number; height: number; alpha: boolean } {
  const b = readFileSync(path);
  assert.equal(b.subarray(1, 4).toString('latin1'), 'PNG', `${path} is not a PNG`);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), alpha: b[25] === 6 || b[25] === 4 };
}

test('the app icon exists in the sizes each platform needs', () => {
  assert.deepEqual(png(join(ASSETS, 'icon.png')), { width: 1024, height: 1024, alpha: true });
  const ico = readFileSync(join(ASSETS, 'icon.ico'));
  assert.equal(ico.readUInt16LE(2), 1, 'an ICO file');
  const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + i * 16] || 256);
  assert.deepEqual(sizes, [16, 24, 32, 48, 64, 128, 256]);
  const icns = readFileSync(join(ASSETS, 'icon.icns'));
  assert.equal(icns.subarray(0, 4).toString('latin1'), 'icns');
  assert.equal(icns.readUInt32BE(4), icns.length, 'a whole ICNS file');
  for (const type of ['ic08', 'ic09'])
    assert.ok(icns.includes(Buffer.from(type)), `ICNS holds ${type} (256 and 512 px)`);
});

test('every tray state has its icon on every platform, at 1x and 2x', () => {
  const states: TrayIconState[] = ['running', 'paused', 'low', 'error'];
  for (const state of states) {
    for (const platform of ['win32', 'linux', 'darwin'] as const) {
      const file = trayIconFile(state, platform);
      const base = platform === 'darwin' ? 16 : 32;
      assert.deepEqual(png(join(ASSETS, 'tray', file)), { width: base, height: base, alpha: true }, file);
      assert.deepEqual(png(join(ASSETS, 'tray', file.replace('.png', '@2x.png'))), {
        width: base * 2,
        height: base * 2,
        alpha: true,
      });
    }
  }
});

test('macOS template images are black with alpha only, as macOS requires to tint them', () => {
  const svg = readFileSync(join(ASSETS, 'src', 'tray-error-template.svg'), 'utf8');
  const colours = new Set([...svg.matchAll(/fill="(#[0-9a-f]{6}|[a-z]+)"/gi)].map((m) => m[1]!.toLowerCase()));
  assert.deepEqual(
    [...colours].filter((c) => c !== 'white' && c !== 'black' && c !== '#000000'),
    [],
    'only black (and the white of the mask)',
  );
});

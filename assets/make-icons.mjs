#!/usr/bin/env node
// Draws Tollgate's icons as SVG (assets/src/) and renders the PNG, ICO and ICNS files
// electron-builder and the tray use. Needs Debian's librsvg2-bin, icoutils and icnsutils
// (rsvg-convert, icotool, png2icns). Run with `npm run icons` after changing a drawing; the
// rendered files are committed, so packaging does not need these tools.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
const SRC = join(HERE, 'src');
const TRAY = join(HERE, 'tray');

/** The gate: a post, a pivot, and a barrier arm with stripes, on a 32-unit grid. */
function gate(fill, stripe) {
  return `
  <rect x="5" y="9" width="4" height="18" rx="1.2" fill="${fill}"/>
  <rect x="3" y="25" width="8" height="3" rx="1" fill="${fill}"/>
  <rect x="6" y="10" width="24" height="5" rx="2.5" fill="${fill}"/>
  ${stripe ? `<path d="M13 10h3l-3 5h-3zM20 10h3l-3 5h-3zM27 10h2.5l-3 5h-3z" fill="${stripe}"/>` : ''}
  <circle cx="7" cy="12.5" r="2.2" fill="${fill}"/>`;
}

/** A state mark in the lower right: pause bars, a falling arrow (low balance) or an exclamation mark. */
function mark(kind, color) {
  switch (kind) {
    case 'paused':
      return `<rect x="19" y="18" width="3.5" height="11" rx="1" fill="${color}"/><rect x="25" y="18" width="3.5" height="11" rx="1" fill="${color}"/>`;
    case 'low':
      return `<path d="M17.5 19h13l-6.5 10z" fill="${color}"/>`;
    case 'error':
      return `<rect x="22" y="17" width="4" height="8" rx="1.5" fill="${color}"/><circle cx="24" cy="28" r="2.1" fill="${color}"/>`;
    default:
      return '';
  }
}

/** A knock-out behind the mark, so the mark reads against the gate. */
function knockout(kind) {
  return kind === 'running' ? '' : `<circle cx="24" cy="23" r="9.5" fill="black"/>`;
}

const COLORS = { running: '#2563eb', paused: '#6b7280', low: '#d97706', error: '#dc2626' };

/** Windows and Linux: the white gate on a rounded square of the state's colour, the mark on top. */
function colourTray(kind) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <rect x="0.5" y="0.5" width="31" height="31" rx="7" fill="${COLORS[kind]}"/>
  <g transform="translate(0 1)">${gate('#ffffff', null)}</g>
  ${kind === 'running' ? '' : `<circle cx="24" cy="23" r="8.5" fill="${COLORS[kind]}" stroke="#ffffff" stroke-width="1.5"/>`}
  <g transform="translate(24 23) scale(0.72) translate(-24 -23)">${mark(kind, '#ffffff')}</g>
</svg>`;
}

/** macOS: a template image, black on transparent (macOS tints it); the mark is cut out of the gate. */
function templateTray(kind) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">
  <defs><mask id="m"><rect width="32" height="32" fill="white"/>${knockout(kind)}</mask></defs>
  <g mask="url(#m)">${gate('#000000', null)}</g>
  <g transform="translate(24 23) scale(0.9) translate(-24 -23)">${mark(kind, '#000000')}</g>
</svg>`;
}

/** The app icon: the gate with a red-and-white arm on a blue rounded square. */
function appIcon() {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="0 0 32 32">
  <defs>
    <linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b82f6"/><stop offset="1" stop-color="#1e3a8a"/></linearGradient>
    <linearGradient id="shine" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff" stop-opacity="0.18"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></linearGradient>
  </defs>
  <rect x="1" y="1" width="30" height="30" rx="7" fill="url(#bg)"/>
  <rect x="1" y="1" width="30" height="15" rx="7" fill="url(#shine)"/>
  <g transform="translate(16 17) scale(0.78) translate(-17 -17)">${gate('#ffffff', '#ef4444')}</g>
</svg>`;
}

function render(svg, out, size) {
  execFileSync('rsvg-convert', ['-w', String(size), '-h', String(size), '-o', out, svg]);
}

mkdirSync(SRC, { recursive: true });
mkdirSync(TRAY, { recursive: true });
const tmp = mkdtempSync(join(tmpdir(), 'tollgate-icons-'));
try {
  const app = join(SRC, 'icon.svg');
  writeFileSync(app, appIcon());
  render(app, join(HERE, 'icon.png'), 1024);
  const ico = [16, 24, 32, 48, 64, 128, 256].map((s) => {
    const p = join(tmp, `ico-${s}.png`);
    render(app, p, s);
    return p;
  });
  execFileSync('icotool', ['-c', '-o', join(HERE, 'icon.ico'), ...ico]);
  const icns = [16, 32, 48, 128, 256, 512].map((s) => {
    const p = join(tmp, `icns-${s}.png`);
    render(app, p, s);
    return p;
  });
  execFileSync('png2icns', [join(HERE, 'icon.icns'), ...icns], { stdio: 'ignore' });

  for (const kind of Object.keys(COLORS)) {
    const colour = join(SRC, `tray-${kind}.svg`);
    writeFileSync(colour, colourTray(kind));
    render(colour, join(TRAY, `${kind}.png`), 32);
    render(colour, join(TRAY, `${kind}@2x.png`), 64);
    const template = join(SRC, `tray-${kind}-template.svg`);
    writeFileSync(template, templateTray(kind));
    render(template, join(TRAY, `${kind}Template.png`), 16);
    render(template, join(TRAY, `${kind}Template@2x.png`), 32);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CONSOLE_CSP,
  consolePageUrl,
  isExternalLink,
  isTrustedSender,
  navigationVerdict,
  originOf,
  permissionAllowed,
  requestAllowed,
} from '../../main/web-security.js';

const O = 'http://127.0.0.1:4141';

test('navigation stays on the console origin; https links go to the browser; the rest is refused', () => {
  assert.equal(navigationVerdict(`${O}/`, O), 'allow');
  assert.equal(navigationVerdict(`${O}/login?code=abc`, O), 'allow');
  assert.equal(navigationVerdict('https://platform.openai.com/api-keys', O), 'open-external');
  for (const url of [
    'http://127.0.0.1:4142/',
    'http://localhost:4141/',
    'http://evil.example/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'tollgate://x',
    'not a url',
    'https://user:pw@example.com/',
  ]) {
    assert.equal(navigationVerdict(url, O), 'deny', url);
  }
});

test('external links must be https without credentials', () => {
  assert.equal(isExternalLink('https://docs.anthropic.com/'), true);
  assert.equal(isExternalLink('http://docs.anthropic.com/'), false);
  assert.equal(isExternalLink('https://a:b@example.com/'), false);
  assert.equal(isExternalLink('mailto:x@example.com'), false);
  assert.equal(isExternalLink(`https://example.com/${'a'.repeat(5000)}`), false);
});

test('the console may load only from the gateway, data: and its own blob: URLs', () => {
  assert.equal(requestAllowed(`${O}/assets/index.js`, O), true);
  assert.equal(requestAllowed(`${O}/api/keys`, O), true);
  assert.equal(requestAllowed('data:image/png;base64,AAAA', O), true);
  assert.equal(requestAllowed(`blob:${O}/1234-5678`, O), true);
  assert.equal(requestAllowed('blob:http://evil.example/1234', O), false);
  assert.equal(requestAllowed('https://cdn.example.com/react.js', O), false);
  assert.equal(requestAllowed('http://127.0.0.1:9999/', O), false);
  assert.equal(requestAllowed('file:///etc/passwd', O), false);
});

test('IPC is trusted only from the console window top frame on the console origin', () => {
  const ok = { webContentsId: 7, frameUrl: `${O}/keys`, isMainFrame: true };
  assert.equal(isTrustedSender(ok, 7, O), true);
  assert.equal(isTrustedSender({ ...ok, webContentsId: 8 }, 7, O), false, 'another webContents');
  assert.equal(isTrustedSender({ ...ok, isMainFrame: false }, 7, O), false, 'a subframe');
  assert.equal(isTrustedSender({ ...ok, frameUrl: 'https://evil.example/' }, 7, O), false, 'another origin');
  assert.equal(isTrustedSender({ ...ok, frameUrl: null }, 7, O), false, 'a frame that is gone');
  assert.equal(isTrustedSender(ok, undefined, undefined), false, 'no console window');
});

test('the CSP allows scripts only from the gateway and forbids frames, plugins and base rewriting', () => {
  const directives = new Map(CONSOLE_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
  assert.equal(directives.get('default-src'), "'none'");
  assert.equal(directives.get('script-src'), "'self'");
  assert.equal(directives.get('object-src'), "'none'");
  assert.equal(directives.get('frame-ancestors'), "'none'");
  assert.equal(directives.get('base-uri'), "'none'");
  assert.doesNotMatch(CONSOLE_CSP, /unsafe-eval/);
  assert.doesNotMatch(directives.get('script-src')!, /unsafe-inline/);
});

test('originOf keeps only http(s) origins', () => {
  assert.equal(originOf(`${O}/login?code=1`), O);
  assert.equal(originOf('file:///x'), undefined);
  assert.equal(originOf('::'), undefined);
});

test('a console page is the login URL with the route as its fragment; anything but a plain path is ignored', () => {
  const login = 'http://127.0.0.1:4141/login?code=abc';
  assert.equal(consolePageUrl(login, '/connect'), `${login}#/connect`);
  assert.equal(consolePageUrl(login, undefined), login);
  assert.equal(consolePageUrl(login, 'javascript:alert(1)'), login);
  assert.equal(consolePageUrl(login, '/connect?x=<b>'), login);
});

test('the console may write the clipboard through the standard API, from its own top frame only; every other permission is refused', () => {
  assert.equal(permissionAllowed('clipboard-sanitized-write', `${O}/#/keys`, true, O), true);
  assert.equal(
    permissionAllowed('clipboard-sanitized-write', O, true, O),
    true,
    'a bare origin (the check handler) counts',
  );
  assert.equal(permissionAllowed('clipboard-sanitized-write', `${O}/`, false, O), false, 'not from a subframe');
  assert.equal(permissionAllowed('clipboard-sanitized-write', 'http://127.0.0.1:4142/', true, O), false);
  assert.equal(permissionAllowed('clipboard-sanitized-write', 'http://evil.example/', true, O), false);
  assert.equal(permissionAllowed('clipboard-sanitized-write', undefined, true, O), false);
  assert.equal(permissionAllowed('clipboard-sanitized-write', `${O}/`, true, undefined), false, 'no console yet');
  for (const p of [
    'clipboard-read',
    'deprecated-sync-clipboard-read',
    'media',
    'notifications',
    'geolocation',
    'openExternal',
    'unknown',
  ])
    assert.equal(permissionAllowed(p, `${O}/`, true, O), false, p);
});

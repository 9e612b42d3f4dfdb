/**
 * The Sessions page in real Chromium against a gateway and the mock upstream: the list with its
 * columns and filters, a new session appearing live (the `session` event) without a reload, a
 * session's view (timeline with cumulative cost, sub-agents, cache savings), and resuming a paused
 * session with an added amount, checked against the admin API. Captured in both themes at 1440×900.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { scenarioBase, startMockUpstream, type MockUpstream } from '../helpers/mock-upstream.js';
import {
  assertConsoleBuilt,
  axeViolations,
  browserSkipReason,
  gotoPage,
  launch,
  openConsole,
  screenshot,
} from './browser.js';

const skip = browserSkipReason();

/** Waits (up to 5 s) until the locator matches exactly `n` elements. */
async function countIs(l: Locator, n: number): Promise<void> {
  for (const end = Date.now() + 5000; (await l.count()) !== n; await new Promise((r) => setTimeout(r, 50)))
    if (Date.now() > end) assert.fail(`expected ${n} rows, found ${await l.count()}`);
}

describe('the Sessions page', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let capped: string;
  let laptop: string;

  /** One chat request as a tool sends it: its session (and sub-agent) headers and user agent. */
  const ask = async (secret: string, headers: Record<string, string>, content = 'hi'): Promise<number> => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-4o', max_tokens: 50, messages: [{ role: 'user', content }] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const claude = (session: string, agent?: string) => ({
    'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)',
    'x-claude-code-session-id': session,
    ...(agent ? { 'x-claude-code-agent-id': agent } : {}),
  });

  before(async () => {
    assertConsoleBuilt();
    mock = await startMockUpstream();
    gw = await startGateway();
    browser = await launch();
    await gw.admin.topup(50);
    // Every answer: 10,000 prompt tokens (8,000 read from the cache) and 100 output: 16,000 µ$ at gpt-4o prices.
    await gw.admin.line({
      name: 'mock',
      baseUrl: scenarioBase(mock, 'usage-in=10000,usage-cached=8000,usage-out=100'),
      models: ['gpt-4o'],
    });
    laptop = await gw.admin.key('laptop', { project: 'tollgate-repo' });
    capped = await gw.admin.key('capped', { sessionCapMicro: 30_000 });
    for (const agent of [undefined, undefined, 'agent-explore', 'agent-explore', 'agent-review'])
      assert.equal(await ask(laptop, claude('cc-7f3a9e12', agent)), 200);
    assert.equal(await ask(laptop, { 'user-agent': 'curl/8.5.0' }), 200);
    assert.equal(await ask(capped, { 'x-tollgate-session': 'overnight-run' }), 200);
    assert.equal(await ask(capped, { 'x-tollgate-session': 'overnight-run' }), 200);
    assert.equal(await ask(capped, { 'x-tollgate-session': 'overnight-run' }), 402, 'the session is paused at its cap');
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('lists sessions with their figures, filters them, and shows a new one live', async () => {
    const c = await openConsole(browser, gw);
    try {
      await gotoPage(c.page, 's', 'Sessions');
      const table = c.page.locator('.sessions-table');
      const row = (id: string) => table.locator('tbody tr', { has: c.page.getByRole('link', { name: id }) });
      await row('cc-7f3a9e12').waitFor();
      const cc = await row('cc-7f3a9e12').innerText();
      for (const want of ['Claude Code', 'laptop · tollgate-repo', '$0.08', '80.0 %', '$0.05', 'active'])
        assert.ok(cc.includes(want), `the Claude Code row shows ${want}: ${cc}`);
      const paused = await row('overnight-run').innerText();
      assert.match(paused, /paused/);
      assert.match(paused, /session cap/);
      assert.equal(await table.locator('tbody tr').count(), 3);

      await c.page.getByLabel('Filter by tool').selectOption('claude-code');
      await countIs(table.locator('tbody tr'), 1);
      await c.page.getByLabel('Filter by tool').selectOption('');
      await c.page.getByLabel('Filter by state').selectOption('paused');
      await countIs(table.locator('tbody tr'), 1);
      assert.equal(await row('overnight-run').count(), 1);
      await c.page.getByLabel('Filter by state').selectOption('');
      await c.page.getByLabel('Filter by key').selectOption('capped');
      await countIs(table.locator('tbody tr'), 1);
      await c.page.getByLabel('Filter by key').selectOption('');
      await c.settled();

      // A session that starts while the page is open appears from the event stream, with no reload.
      const requestsBefore = c.page.waitForRequest((r) => r.url().includes('/api/sessions?'), { timeout: 3000 });
      assert.equal(await ask(capped, { 'x-tollgate-session': 'fresh-start' }), 200);
      await row('fresh-start').waitFor({ timeout: 5000 });
      assert.equal(
        await requestsBefore.then(
          () => 'refetched',
          () => 'from the event',
        ),
        'from the event',
      );
      assert.equal(await table.locator('tbody tr').first().locator('a').innerText(), 'fresh-start');
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  test("a session's view: timeline with cumulative cost, sub-agents, cache savings", async () => {
    const c = await openConsole(browser, gw);
    try {
      await gotoPage(c.page, 's', 'Sessions');
      await c.page.getByRole('link', { name: 'cc-7f3a9e12' }).click();
      await c.page.getByRole('heading', { name: 'Timeline' }).waitFor();
      const rows = c.page.locator('.session-requests tbody tr');
      await rows.nth(4).waitFor();
      assert.equal(await rows.count(), 5);
      const cells = async (i: number) => (await rows.nth(i).locator('td').allInnerTexts()).map((t) => t.trim());
      assert.deepEqual((await cells(0)).slice(1), [
        'main',
        'gpt-4o',
        '200',
        '10,000 · 100',
        '80 %',
        '$0.016000',
        '$0.02',
      ]);
      assert.deepEqual((await cells(4)).slice(-2), ['$0.016000', '$0.08']);
      assert.match((await cells(2))[1]!, /agent-explore/);
      const agents = c.page.locator('section', { has: c.page.getByRole('heading', { name: 'Sub-agents' }) });
      assert.deepEqual(
        [
          (await agents.locator('tbody tr').nth(0).locator('td').allInnerTexts()).slice(0, 3),
          (await agents.locator('tbody tr').nth(1).locator('td').allInnerTexts()).slice(0, 3),
        ],
        [
          ['agent-explore', '2', '$0.03'],
          ['agent-review', '1', '$0.02'],
        ],
      );
      const stats = await c.page.locator('.session-stats').innerText();
      assert.match(stats, /Saved by caching\s+\$0\.05/i);
      assert.match(stats, /80\.0 %/);
      assert.match(stats, /no session cap/);
      assert.ok(await c.page.getByRole('img', { name: /Cumulative cost .* \$0\.08 over 5 requests/ }).isVisible());
      assert.equal(
        await c.page.getByRole('button', { name: 'Resume session' }).count(),
        0,
        'an active session has no Resume',
      );
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  test('resumes a paused session, raising its cap by the amount typed (checked at the field)', async () => {
    const c = await openConsole(browser, gw);
    try {
      await c.page.goto(`${gw.url}/#/sessions/overnight-run`);
      await c.page.getByRole('heading', { name: /^Paused / }).waitFor();
      assert.match(await c.page.locator('.session-pause').innerText(), /session cap of \$0\.03 is reached/);
      const add = c.page.getByLabel('Add to its cap (USD, optional)');
      await add.fill('1.2345678');
      assert.equal(await add.getAttribute('aria-invalid'), 'true');
      assert.ok(await c.page.getByRole('button', { name: 'Resume session' }).isDisabled());
      await add.fill('$1.50');
      await c.page.getByRole('button', { name: 'Resume session' }).click();
      await c.page.getByText('its cap is now $1.53').waitFor();
      await c.page.locator('.session-facts').getByText('active').waitFor();
      assert.equal(await c.page.getByRole('button', { name: 'Resume session' }).count(), 0);
      const { session } = await gw.admin.call('getSession', { params: { id: 'overnight-run' } });
      assert.deepEqual([session.capMicro, session.state, session.pause], [1_530_000, 'active', null]);
      await countIs(c.page.locator('.session-requests tbody tr'), 3);
      assert.equal(await ask(capped, { 'x-tollgate-session': 'overnight-run' }), 200, 'the session works again');
      // The new request reaches the open view through the stream. The timeline lists the session's
      // two answers, the 402 that paused it, and now the fourth; the count was 3 before it.
      await countIs(c.page.locator('.session-requests tbody tr'), 4);
      assert.deepEqual(c.problems, []);
    } finally {
      await c.close();
    }
  });

  for (const theme of ['light', 'dark'] as const)
    test(`the list and a paused session in the ${theme} theme pass axe and are captured at 1440×900`, async () => {
      await ask(capped, { 'x-tollgate-session': `night-${theme}` });
      await ask(capped, { 'x-tollgate-session': `night-${theme}` });
      assert.equal(await ask(capped, { 'x-tollgate-session': `night-${theme}` }), 402);
      const c = await openConsole(browser, gw, { theme });
      try {
        await c.page.setViewportSize({ width: 1440, height: 900 });
        await gotoPage(c.page, 's', 'Sessions');
        await c.page.getByRole('link', { name: `night-${theme}` }).waitFor();
        await c.settled();
        await screenshot(c.page, `sessions-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `sessions (${theme})`);
        await c.page.getByRole('link', { name: `night-${theme}` }).click();
        await c.page.getByRole('button', { name: 'Resume session' }).waitFor();
        await c.settled();
        await screenshot(c.page, `session-paused-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `paused session (${theme})`);
        await c.page.goto(`${gw.url}/#/sessions/cc-7f3a9e12`);
        await c.page.getByRole('heading', { name: 'Sub-agents' }).waitFor();
        await c.settled();
        await screenshot(c.page, `session-detail-${theme}`);
        assert.deepEqual(await axeViolations(c.page), [], `session detail (${theme})`);
        assert.deepEqual(c.problems, []);
      } finally {
        await c.close();
      }
    });
});

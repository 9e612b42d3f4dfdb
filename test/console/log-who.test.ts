/**
 * Who sent each request, in the usage log in real Chromium: session, tool and project as columns
 * (at 1280 px Project and Line fold away and nothing scrolls sideways; at 1440 px all show), as
 * filters held in the URL and cleared by the chip, and in the details drawer with a link to the
 * session's page and to the session's rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { waitFor, type TestGateway } from '../helpers/gateway.js';
import type { MockUpstream } from '../helpers/mock-upstream.js';
import { axeViolations, browserSkipReason, openConsole, screenshot, type ConsolePage } from './browser.js';
import { startConsoleWorld } from './world.js';

const skip = browserSkipReason();
const CLAUDE_SESSION = 'cc-7f3a9b2e-5d41-4c8e-9a10-2b6f0e4d8c11';
const SCRIPT_SESSION = 'nightly-report';

async function shownIds(page: Page): Promise<string[]> {
  return page
    .locator('.log-body')
    .evaluateAll((rows: { getAttribute(name: string): string | null }[]) =>
      rows.map((r) => r.getAttribute('data-request-id') ?? ''),
    );
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const grid = page.getByRole('grid', { name: 'Usage log' });
  const { scroll, client } = await grid.evaluate((el: { scrollWidth: number; clientWidth: number }) => ({
    scroll: el.scrollWidth,
    client: el.clientWidth,
  }));
  assert.ok(scroll <= client, `the log scrolls sideways: ${scroll} > ${client}`);
}

describe('the usage log says who sent each request', { skip }, () => {
  let gw: TestGateway;
  let mock: MockUpstream;
  let browser: Browser;
  let c: ConsolePage;
  let page: Page;

  before(async () => {
    ({ gw, mock, browser } = await startConsoleWorld());
    const laptop = await gw.admin.key('laptop', { project: 'website' });
    const ci = await gw.admin.key('ci');
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    // Claude Code's own headers: its session, a sub-agent, its user agent.
    for (const agent of [null, 'agent-explore-1']) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${laptop}`,
          'content-type': 'application/json',
          'user-agent': 'claude-cli/2.0.14 (external, cli)',
          'x-claude-code-session-id': CLAUDE_SESSION,
          ...(agent ? { 'x-claude-code-agent-id': agent } : {}),
        },
        body,
      });
      assert.equal(r.status, 200);
      await r.text();
    }
    // A script naming its session and project (the OpenAI SDK).
    const sdk = gw.openai(ci);
    await sdk.chat.completions.create(
      { model: 'gpt-4o', messages: [{ role: 'user', content: 'report' }] },
      { headers: { 'x-tollgate-session': SCRIPT_SESSION, 'x-tollgate-project': 'tollgate' } },
    );
    c = await openConsole(browser, gw);
    page = c.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async () => {
    await c?.close();
    await browser?.close();
    await gw?.close();
    await mock?.close();
  });

  test('columns: tool by name, project, a short session; at 1280 px Project and Line fold away', async () => {
    const rows = await gw.admin.logs();
    assert.deepEqual(
      rows.map((r) => [r.tool, r.project, r.session, r.agent]),
      [
        ['openai-sdk', 'tollgate', SCRIPT_SESSION, null],
        ['claude-code', 'website', CLAUDE_SESSION, 'agent-explore-1'],
        ['claude-code', 'website', CLAUDE_SESSION, null],
      ],
    );
    await page.goto(`${gw.url}/#/logs`);
    await waitFor(async () => (await shownIds(page)).length === 3, 'three rows');
    const row = page.locator(`[data-request-id="${rows[1]!.requestId}"]`);
    assert.equal(await row.locator('.col-tool').textContent(), 'Claude Code');
    assert.equal(await row.locator('.col-session').textContent(), 'cc-7f3a9…');
    assert.equal(await row.locator('.col-session').getAttribute('title'), CLAUDE_SESSION);
    await noSidewaysScroll(page);
    assert.equal(await page.getByRole('columnheader', { name: 'Project' }).isVisible(), false);
    assert.equal(await page.getByRole('columnheader', { name: 'Line' }).isVisible(), false);
    for (const name of ['Tool', 'Session', 'Latency', 'Error'])
      assert.equal(await page.getByRole('columnheader', { name }).isVisible(), true, name);
    const latency = await page.getByRole('columnheader', { name: 'Latency' }).boundingBox();
    const grid = await page.getByRole('grid', { name: 'Usage log' }).boundingBox();
    assert.ok(latency && grid && latency.x + latency.width <= grid.x + grid.width, 'LATENCY is cut off');

    await page.setViewportSize({ width: 1440, height: 900 });
    await waitFor(
      async () => await page.getByRole('columnheader', { name: 'Project' }).isVisible(),
      'Project shows at 1440 px',
    );
    assert.equal(await row.locator('.col-project').textContent(), 'website');
    await noSidewaysScroll(page);
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  test('tool, project and session filter the log, live in the URL, and the chip clears them', async () => {
    await page.getByLabel('Filter by tool').selectOption('claude-code');
    await waitFor(async () => page.url().includes('tool=claude-code'), 'tool in the URL');
    const claude = (await gw.admin.logs({ tool: 'claude-code' })).map((r) => r.requestId);
    assert.equal(claude.length, 2);
    await waitFor(async () => (await shownIds(page)).join() === claude.join(), 'only Claude Code rows');
    await waitFor(
      async () => (await page.getByTestId('log-summary').textContent())?.includes('2 requests') ?? false,
      'the summary follows the tool',
    );

    await page.getByLabel('Filter by project').fill('tollgate');
    await waitFor(async () => page.url().includes('project=tollgate'), 'project in the URL');
    await waitFor(async () => (await shownIds(page)).length === 0, 'no Claude Code row in project tollgate');
    await page.getByRole('button', { name: /Clear filters \(2\)/ }).click();
    await waitFor(async () => (await shownIds(page)).length === 3, 'every row again');
    assert.equal(await page.getByLabel('Filter by project').inputValue(), '');

    await page.goto(`${gw.url}/#/logs?session=${SCRIPT_SESSION}`);
    const script = (await gw.admin.logs({ session: SCRIPT_SESSION })).map((r) => r.requestId);
    await waitFor(async () => (await shownIds(page)).join() === script.join(), 'the session from the URL');
    assert.equal(await page.getByLabel('Filter by session').inputValue(), SCRIPT_SESSION);
    await page.reload();
    await waitFor(async () => (await shownIds(page)).join() === script.join(), 'kept over a reload');
    await page.getByRole('button', { name: /Clear filters \(1\)/ }).click();
    await waitFor(async () => (await shownIds(page)).length === 3, 'cleared');
  });

  test('the drawer shows tool, project, session and sub-agent, and links to the session', async () => {
    const sub = (await gw.admin.logs({ tool: 'claude-code' }))[0]!;
    await page.locator(`[data-request-id="${sub.requestId}"]`).click();
    const sheet = page.getByRole('dialog');
    const facts = (await sheet.locator('dl.facts').first().textContent()) ?? '';
    assert.match(facts, /ToolClaude Code/);
    assert.match(facts, /Projectwebsite/);
    assert.match((await sheet.getByTestId('detail-session').textContent()) ?? '', /sub-agent agent-explore-1/);
    assert.deepEqual(await axeViolations(page), []);

    await sheet.getByRole('link', { name: 'its requests' }).click();
    await waitFor(async () => page.url().includes(`session=${CLAUDE_SESSION}`), 'the session filter');
    await waitFor(async () => (await page.getByRole('dialog').count()) === 0, 'the drawer closed');
    await waitFor(async () => (await shownIds(page)).length === 2, "the session's two rows");

    await page.locator(`[data-request-id="${sub.requestId}"]`).click();
    await page.getByRole('dialog').getByRole('link', { name: CLAUDE_SESSION }).click();
    await waitFor(async () => page.url().endsWith(`#/sessions/${CLAUDE_SESSION}`), 'the session page');
    await page.getByText(CLAUDE_SESSION).first().waitFor();
    assert.deepEqual(c.problems, []);
  });

  test('while the first page and the summary load, the log shows grey rows, not "No requests yet" or "0 requests"', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const hold = async (route: { continue(): Promise<void> }): Promise<void> => {
      await held;
      await route.continue();
    };
    await page.route('**/api/logs?**', hold);
    await page.route('**/api/logs/summary**', hold);
    await page.goto(`${gw.url}/#/logs?tool=codex`);
    await page.getByTestId('log-loading').waitFor();
    await page.getByTestId('log-summary-loading').waitFor();
    assert.equal(await page.getByText('No requests match this filter').count(), 0);
    assert.equal(await page.getByRole('grid', { name: 'Usage log' }).getAttribute('aria-busy'), 'true');
    release();
    // No Codex row: once loaded, the empty state, and the skeleton gone.
    await page.getByText('No requests match this filter').waitFor();
    assert.equal(await page.getByTestId('log-loading').count(), 0);
    await page.unroute('**/api/logs?**');
    await page.unroute('**/api/logs/summary**');
  });

  test('both themes at 1440×900 and 1280×720: no sideways scroll, axe clean', async () => {
    for (const theme of ['light', 'dark'] as const) {
      const t = await openConsole(browser, gw, { theme });
      for (const [width, height] of [
        [1440, 900],
        [1280, 720],
      ] as const) {
        await t.page.setViewportSize({ width, height });
        await t.page.goto(`${gw.url}/#/logs`);
        await waitFor(async () => (await shownIds(t.page)).length === 3, 'rows');
        await noSidewaysScroll(t.page);
        assert.deepEqual(await axeViolations(t.page), [], `${theme} ${width}`);
        await screenshot(t.page, `log-who-${theme}-${width}x${height}`);
      }
      await t.close();
    }
  });
});

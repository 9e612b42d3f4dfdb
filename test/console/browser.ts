/**
 * Real Chromium (Debian's /usr/bin/chromium, driven by playwright-core) against a real gateway
 * serving the built console. A page fails its test on any script error, CSP violation or request
 * that leaves the gateway's origin.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { REPO, type TestGateway } from '../helpers/gateway.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The launch flags a closed network needs: no background calls to Google's hosts. */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
export const ARTIFACTS = join(REPO, 'test-artifacts', 'console');

/** Why the browser tests cannot run here, or undefined when they can. */
export function browserSkipReason(): string | undefined {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  return undefined;
}

/** The console must be built; a missing build is a failure, not a skip (npm run build makes it). */
export function assertConsoleBuilt(): void {
  if (!existsSync(join(REPO, 'renderer/dist/index.html')))
    throw new Error('renderer/dist is missing: run "npm run build" first.');
}

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /**
   * Resolves once no request but the event stream (which stays open) has been in flight for a
   * moment: the page has its data. Playwright's "networkidle" never comes with a stream open.
   * Rejects, naming the requests still out, if that has not happened in 30 s.
   */
  settled(): Promise<void>;
  /** Script errors, CSP violations and off-origin requests seen so far. */
  problems: string[];
  close(): Promise<void>;
}

export async function openConsole(
  browser: Browser,
  gw: TestGateway,
  opts: {
    theme?: 'light' | 'dark';
    login?: boolean;
    /** Grant the page clipboard access (as a user's browser would); on unless false. */
    clipboard?: boolean;
    /** A script run in the page before its own (as the desktop app's preload is). */
    initScript?: string;
  } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    colorScheme: opts.theme ?? 'light',
    viewport: { width: 1360, height: 860 },
    deviceScaleFactor: 1,
    acceptDownloads: true,
  });
  if (opts.clipboard !== false)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gw.url });
  if (opts.initScript) await context.addInitScript(opts.initScript);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) problems.push(`console error: ${msg.text()}`);
  });
  const inFlight = new Map<Request, number>();
  const streaming = (url: string): boolean => url.endsWith('/api/events');
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(`${gw.url}/`) && !url.startsWith('data:')) problems.push(`request left the gateway: ${url}`);
    if (!streaming(url)) inFlight.set(req, Date.now());
  });
  const finished = (req: Request): void => void inFlight.delete(req);
  page.on('requestfinished', finished);
  page.on('requestfailed', finished);
  // A request never answered would otherwise hold the test until the runner's own timeout, saying nothing.
  const settled = async (): Promise<void> => {
    const deadline = Date.now() + 30_000;
    for (let quiet = 0; quiet < 3;) {
      if (Date.now() > deadline) {
        const out = [...inFlight].map(([r, at]) => `${r.method()} ${r.url()} (${Date.now() - at} ms)`);
        throw new Error(`the page did not settle in 30 s; still in flight: ${out.join(', ')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
      quiet = inFlight.size === 0 ? quiet + 1 : 0;
    }
  };
  if (opts.login !== false) {
    await page.goto(gw.running.loginUrl());
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
  }
  return { context, page, problems, settled, close: () => context.close() };
}

let axeSource: string | undefined;

interface AxeResult {
  violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
}

/** axe-core's serious and critical findings on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(axeSource);
  const result = await page.evaluate<AxeResult>("axe.run(document, { resultTypes: ['violations'] })");
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Goes to a page the way a person does, with its keyboard shortcut, and waits for its heading. */
export async function gotoPage(page: Page, key: string, heading: string): Promise<void> {
  await page.locator('body').press(key);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

// The docs page in a real browser: Debian's Chromium driven by playwright-core (no browser is ever
// downloaded). A real app listens on a free port with a demo account; the test reads the page as a
// partner would, authorizes with the demo key and organization, and runs "Try it out" on the list
// of teardowns. Skipped, saying why, only when Chromium is missing outside CI; in CI it must run
// (.ci/run installs Chromium first).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoAccount, type DemoAccount } from '../../src/accounts/demo.js';
import { DOCS_TITLE } from '../../src/observability/docs-page.js';
import { backend, createTestApp, type TestApp } from '../helpers/app.js';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = resolve('test-output/docs-page.png');
const haveChromium = existsSync(CHROMIUM);
const skip = !haveChromium && !process.env.CI;
if (skip) {
  console.warn(
    `docs page browser test SKIPPED: ${CHROMIUM} is missing (install it with \`apt-get install -y --no-install-recommends chromium\`); it never skips when CI is set.`,
  );
}

// Without the background-networking flags Chromium's own connections (updates, sync) are refused
// on a machine without internet and slow every navigation down.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Once per run: the page does not depend on the database backend (the PGlite project always runs).
describe.skipIf(skip || backend() !== 'pglite')('the docs page in Chromium', () => {
  let t: TestApp;
  let demo: DemoAccount;
  let base: string;
  let profile: string;
  let browser: BrowserContext;
  let page: Page;
  /** Console errors and failed requests: a CSP refusal or a missing asset shows up here. */
  const problems: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    demo = await createDemoAccount(t.app.ctx.db);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as { port: number };
    base = `http://127.0.0.1:${port}`;
    profile = mkdtempSync(join(tmpdir(), 'docs-page-chromium-'));
    // A fresh profile per run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    await t?.close();
  });

  it('renders the guides, the lifecycle picture and the operations', async () => {
    await page.goto(`${base}/docs`);
    await expect(page.title()).resolves.toBe(DOCS_TITLE);
    await page.locator('.info .title').waitFor({ timeout: 30_000 });
    expect(await page.locator('.info .title').textContent()).toContain('Aviation marketplace partner API');

    const headings = await page.locator('.info h2').allTextContents();
    for (const heading of [
      'Getting started',
      'Authentication and the order of checks',
      'Errors',
      'Rate limits',
      'Safe retries: Idempotency-Key',
      'Conditional requests: ETag, If-Match, If-None-Match',
      'Pagination and the legacy list field names',
      'Teardown lifecycle',
      'Audiences',
      'Files',
      'Staying in sync: the event feed',
      'Webhooks',
    ]) {
      expect(headings).toContain(heading);
    }
    // Markdown really rendered: tables and code blocks, not their source text.
    expect(await page.locator('.info table').count()).toBeGreaterThanOrEqual(8);
    expect(await page.locator('.info pre code').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('.info').textContent()).not.toContain('| Header |');

    // The contents list (served script) names every guide and the operations, and jumps to them.
    const contents = page.locator('nav.guide-contents button');
    expect(await contents.count()).toBe(headings.length + 1);
    await contents.filter({ hasText: 'Teardown lifecycle' }).click();
    const lifecycle = page.locator('.info h2', { hasText: 'Teardown lifecycle' });
    await expect.poll(() => lifecycle.evaluate((h) => Math.abs(Math.round(h.getBoundingClientRect().top))), { timeout: 5_000 }).toBeLessThan(40);

    const picture = page.locator('.info img[src$="/docs/assets/teardown-lifecycle.svg"]');
    await picture.scrollIntoViewIfNeeded();
    await expect
      .poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 10_000 })
      .toBeGreaterThan(500);

    expect(await page.locator('.opblock-tag', { hasText: 'teardowns' }).count()).toBeGreaterThan(0);
    expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
  });

  it('authorizes once and runs "Try it out" on the list of teardowns: 200', async () => {
    await page.locator('.auth-wrapper .btn.authorize').click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    // One form per security scheme: the bearer key and the X-Organization-Id header.
    const bearer = dialog.locator('.auth-container', { hasText: /bearer/i });
    const organization = dialog.locator('.auth-container', { hasText: 'X-Organization-Id' });
    await bearer.locator('input').fill(demo.key);
    await bearer.locator('button.authorize').click();
    await organization.locator('input').fill(demo.orgId);
    await organization.locator('button.authorize').click();
    // Both schemes now show a Logout button instead of Authorize.
    await expect.poll(() => dialog.locator('button', { hasText: 'Logout' }).count()).toBe(2);
    await dialog.locator('.btn-done').first().click();

    const operation = page.locator('#operations-teardowns-listTeardowns');
    await operation.locator('.opblock-summary').click();
    await operation.locator('.try-out__btn').click();
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor({ timeout: 15_000 });
    expect((await status.textContent())?.trim()).toBe('200');
    const body = await operation.locator('.live-responses-table tr.response .response-col_description').first().textContent();
    expect(body).toContain('"per_page": 20');

    // The curl the page shows carries both headers, as a partner would paste it.
    const curl = await operation.locator('.curl-command').textContent();
    expect(curl).toContain(`Authorization: Bearer ${demo.key}`);
    expect(curl).toContain(`X-Organization-Id: ${demo.orgId}`);

    mkdirSync('test-output', { recursive: true });
    await status.evaluate((cell) => cell.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: SCREENSHOT });
    console.log(`docs page screenshot: ${SCREENSHOT}`);

    expect(problems).toEqual([]);
  });
});

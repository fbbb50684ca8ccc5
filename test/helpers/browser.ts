/**
 * Headless Chromium for the page tests: Debian's /usr/bin/chromium driven by playwright-core (no browser is
 * ever downloaded). pixd's certificate comes from its own CA: contexts ignore HTTPS errors (tests only).
 * Screenshots go to test/artifacts/; with PIXD_SCREENSHOTS=docs/images they are also written there, which is
 * how the images in the docs are made (`PIXD_SCREENSHOTS=docs/images npm test -- test/billing/browser.test.ts`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export async function newContext(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; clipboardOrigin?: string } = {},
): Promise<BrowserContext> {
  const phone = options.viewport === PHONE;
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
    viewport: options.viewport ?? DESKTOP,
    ...(phone && { isMobile: true, hasTouch: true }),
  });
  if (options.clipboardOrigin)
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: options.clipboardOrigin });
  return context;
}

/** Full-page screenshot `<name>.png` in test/artifacts (and in $PIXD_SCREENSHOTS when set). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const docs = process.env.PIXD_SCREENSHOTS;
  if (docs) {
    fs.mkdirSync(docs, { recursive: true });
    fs.copyFileSync(file, path.join(docs, `${name}.png`));
  }
}

/** The page's visible text: what a person reads (for "never a property path" checks). */
export const visibleText = (page: Page) => page.evaluate(() => document.body.innerText);

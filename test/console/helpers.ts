/**
 * What the console's browser tests share: a pixd node with a local webhook receiver, Debian's Chromium
 * (playwright-core; nothing downloaded), signing in, axe-core in the page, screenshots.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { startTestService, type Party, type TestService } from '../helpers/service.ts';
import { Receiver, webhookApi } from '../helpers/receiver.ts';

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
/** PIXD_CONSOLE_SCREENSHOTS=1 photographs the pages into docs/images/ (docs/console.md shows them). */
const SHOTS = process.env.PIXD_CONSOLE_SCREENSHOTS === '1' ? new URL('../../docs/images/', import.meta.url) : undefined;
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

export interface ConsoleRig {
  svc: TestService;
  browser: Browser;
  receiver: Receiver;
}

export async function startRig(): Promise<ConsoleRig> {
  const svc = await startTestService();
  const receiver = await Receiver.start({ clientCaPem: svc.caPem });
  const browser = await launchChromium();
  return { svc, browser, receiver };
}

export async function stopRig(rig: ConsoleRig | undefined): Promise<void> {
  await rig?.browser.close();
  await rig?.receiver.close();
  await rig?.svc.close();
}

export const consoleUrl = (svc: TestService) => `${svc.service.ctx.pages.url}/console`;

export function openContext(browser: Browser): Promise<BrowserContext> {
  // pixd's certificate comes from its own CA: tests only. The console's content security policy stays on.
  return browser.newContext({ ignoreHTTPSErrors: true, viewport: VIEWPORTS.desktop });
}

export async function demoSignIn(context: BrowserContext, url: string, photograph = false): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  assert.match(page.url(), /\/console\/signin$/);
  if (photograph) await shoot(page, 'signin');
  await page.click('text=Entrar na conta demo');
  await page.waitForURL(url);
  return page;
}

export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the debugging protocol, which the page's content security policy does not govern.
  await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  })) as { id: string; impact: string }[];
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(severe, [], `${what}: ${JSON.stringify(severe)}`);
}

export async function shoot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  fs.mkdirSync(SHOTS, { recursive: true });
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(SHOTS.pathname, `console-${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize(VIEWPORTS.desktop);
}

export async function createCob(party: Party, original: string): Promise<string> {
  const res = await webhookApi(party).call('POST', '/v2/cob', {
    calendario: { expiracao: 3600 },
    valor: { original },
    chave: party.chaves[0],
    devedor: { nome: 'Fulano de Tal', cpf: '12345678909' },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.txid as string;
}

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Browser, chromium, Page } from 'playwright-core';

/**
 * Browser tests drive Debian's Chromium (`apt-get install -y chromium`) through playwright-core:
 * no browser download. Screenshots go to var/screenshots/ (kept as test artefacts, gitignored).
 */
export const CHROMIUM = '/usr/bin/chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
export const SCREENSHOTS_DIR = join(process.cwd(), 'var', 'screenshots');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

export const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'mobile', width: 390, height: 844 },
] as const;

export type Viewport = (typeof VIEWPORTS)[number];

/** `describe` when Chromium is installed, else `describe.skip` with a warning naming the file. */
export function browserSuite(file: string): jest.Describe {
  if (!HAS_CHROMIUM) console.warn(`${file}: skipped, ${CHROMIUM} not found (apt-get install -y chromium)`);
  return HAS_CHROMIUM ? describe : describe.skip;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** Saves a full-page screenshot as var/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS_DIR, `${name}.png`), fullPage: true });
}

let axeSource: string | undefined;

/** Serious or critical axe-core violations of the page as it is now (ids and the elements involved). */
export async function seriousViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol: the page's strict CSP stays on.
  await page.evaluate(axeSource);
  const result = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: unknown) => Promise<unknown> } }).axe;
    return axe.run({ resultTypes: ['violations'] });
  })) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * Debian's Chromium, headless, for the browser self-tests. playwright-core brings no browser of
 * its own (and downloads none); the flags are the ones this machine kind documents: as root
 * Chromium needs --no-sandbox, and without the background-networking flags it keeps trying to
 * reach Google's hosts through a closed network.
 */
import type { Browser } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];

export async function launchChromium(): Promise<Browser> {
  // Loaded here, not at the top: scripts/selftest.ts reads CHROMIUM_PATH without starting a browser.
  const { chromium } = await import('playwright-core');
  // Playwright gives each launch a new, empty profile (--user-data-dir in a temp folder).
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}

// Playwright helpers for VRAM Lens UI tests against code-server's real VS Code workbench.
// playwright-core (never `playwright`: it downloads browsers) and code-server live in $E2E_HOME,
// installed by scripts/e2e/install.sh; the browser is Debian's /usr/bin/chromium.
//
//   import { openWorkbench, openFile, hoverAt, readProblems, runQuickFix, screenshot } from '<repo>/scripts/e2e/ui.mjs';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const E2E_HOME = process.env.E2E_HOME || path.join(os.homedir(), '.cache', 'vram-lens-e2e');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--mute-audio',
];
const MOD = 'Control'; // code-server on Linux: Ctrl-based keybindings

let pw;
/** playwright-core from $E2E_HOME/tools (or, failing that, from the current project). */
export function playwright() {
  if (pw) return pw;
  const bases = [path.join(E2E_HOME, 'tools', 'package.json'), path.join(process.cwd(), 'package.json')];
  for (const base of bases) {
    try { pw = createRequire(base)('playwright-core'); return pw; } catch { /* next */ }
  }
  throw new Error(`playwright-core not found in ${E2E_HOME}/tools: run "bash scripts/e2e/install.sh" first`);
}

const browsers = new Set();
const pages = [];

/** Launch headless Debian Chromium. Closed by closeAll() (run.mjs does it at the end). */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run "bash scripts/e2e/install.sh"`);
  const browser = await playwright().chromium.launch({
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS,
    // run.mjs handles signals itself and calls closeAll()
    handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false,
  });
  browsers.add(browser);
  browser.on('disconnected', () => browsers.delete(browser));
  return browser;
}

/** New page (1400x900) in a fresh browser context. */
export async function newPage(browser, { viewport = { width: 1400, height: 900 } } = {}) {
  const context = await (browser ?? await launchBrowser()).newContext({ viewport });
  const page = await context.newPage();
  pages.push(page);
  if (process.env.VERBOSE) page.on('console', (m) => console.log(`[browser:${m.type()}]`, m.text()));
  return page;
}

/**
 * Open the workbench at `url` (run.mjs passes ctx.url: folder + extensionDevelopmentPath payload)
 * and wait until it is usable. Returns the Playwright page.
 */
export async function openWorkbench(url, { timeout = 90_000, viewport } = {}) {
  const page = await newPage(undefined, { viewport });
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout });
  await page.locator('.part.statusbar').waitFor({ timeout });
  // the explorer shows the folder once the remote connection is up
  await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ timeout });
  return page;
}

/** Close every browser launched through this module (safe to call twice). */
export async function closeAll() {
  await Promise.all([...browsers].map((b) => b.close().catch(() => {})));
  browsers.clear();
  pages.length = 0;
}

/** Pages opened through this module that are still open. */
export function openPages() { return pages.filter((p) => !p.isClosed()); }

/** Run a command from the Command Palette by its label, e.g. 'VRAM Lens: Show Estimate'. */
export async function runCommand(page, label, { timeout = 15_000 } = {}) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible', timeout });
  await input.fill('>' + label);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first().waitFor({ timeout });
  await page.keyboard.press('Enter');
}

/**
 * Open a workspace file through Quick Open (Ctrl+P) by its workspace-relative path and wait until
 * its editor is active. Retries while the file search is still warming up.
 */
export async function openFile(page, relPath, { timeout = 30_000 } = {}) {
  const base = path.posix.basename(relPath);
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: base }).first();
  const end = Date.now() + timeout;
  for (;;) {
    await page.keyboard.press(`${MOD}+P`);
    await input.waitFor({ state: 'visible', timeout: 5_000 });
    await input.fill(relPath);
    try {
      await row.waitFor({ timeout: 3_000 });
      await page.keyboard.press('Enter');
      break;
    } catch (e) {
      await page.keyboard.press('Escape');
      if (Date.now() > end) throw new Error(`Quick Open found no "${relPath}": ${e.message}`);
      await page.waitForTimeout(500);
    }
  }
  await page.locator('.tabs-container .tab.active', { hasText: base }).waitFor({ timeout });
  await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().waitFor({ timeout });
  return page;
}

/** Locator of the first rendered token in the active editor whose text contains `text`. */
export function editorToken(page, text) {
  return page.locator('.editor-group-container.active .monaco-editor .view-line span span', { hasText: text }).first();
}

/**
 * Hover over `text` in the active editor and return the hover widget's text.
 * opts.expect (string | RegExp): keep retrying until the hover contains it (extension activation lags).
 * opts.at (0..1): horizontal position inside the matched token (default 0.5, its middle).
 */
export async function hoverAt(page, text, { expect, at = 0.5, timeout = 30_000 } = {}) {
  const token = editorToken(page, text);
  await token.waitFor({ timeout });
  const hover = page.locator('.monaco-hover:visible');
  const end = Date.now() + timeout;
  let last = '';
  for (;;) {
    await page.mouse.move(2, 2);
    const box = await token.boundingBox();
    if (box) await page.mouse.move(box.x + box.width * at, box.y + box.height / 2, { steps: 3 });
    try {
      await hover.first().waitFor({ timeout: 2_000 });
      last = (await hover.allInnerTexts()).join('\n').trim();
      const ok = expect === undefined ? last.length > 0
        : expect instanceof RegExp ? expect.test(last) : last.includes(expect);
      if (ok) return last;
    } catch { /* no hover yet */ }
    if (Date.now() > end) {
      throw new Error(`no hover${expect ? ` matching ${expect}` : ''} over "${text}" (last hover: ${JSON.stringify(last)})`);
    }
  }
}

/**
 * Show the Problems panel and return its rows as strings ("<message> <source>(<code>) [Ln x, Col y]" etc).
 * opts.waitFor (string | RegExp): wait until some row matches.
 */
export async function readProblems(page, { waitFor, timeout = 30_000 } = {}) {
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible())) await page.keyboard.press(`${MOD}+Shift+M`);
  await panel.waitFor({ timeout });
  const rows = panel.locator('.monaco-list-row');
  const read = async () => (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
  const end = Date.now() + timeout;
  for (;;) {
    const texts = await read();
    const ok = waitFor === undefined ? true
      : texts.some((t) => (waitFor instanceof RegExp ? waitFor.test(t) : t.includes(waitFor)));
    if (ok) return texts;
    if (Date.now() > end) throw new Error(`no problem matching ${waitFor}; rows: ${JSON.stringify(texts)}`);
    await page.waitForTimeout(250);
  }
}

/**
 * Apply the quick fix whose title contains `titleSubstring`.
 * opts.at: text in the active editor to put the cursor on first (e.g. the flagged key).
 * Returns the chosen row's text. The edit is NOT saved (press Ctrl+S yourself if needed).
 */
export async function runQuickFix(page, titleSubstring, { at, timeout = 30_000 } = {}) {
  const item = page.locator('.action-widget .monaco-list-row', { hasText: titleSubstring }).first();
  const end = Date.now() + timeout;
  // Ctrl+. sometimes answers "No code actions available" right after focus changes: retry.
  for (;;) {
    if (at) await editorToken(page, at).click();
    else await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press(`${MOD}+.`);
    try { await item.waitFor({ timeout: 3_000 }); break; } catch (e) {
      await page.keyboard.press('Escape');
      if (Date.now() > end) throw new Error(`no quick fix "${titleSubstring}": ${e.message}`);
      await page.waitForTimeout(500);
    }
  }
  const label = (await item.innerText()).trim();
  // mouse clicks on action-widget rows never become "stable": select with the keyboard
  for (let i = 0; i < 20 && !(await item.evaluate((el) => el.classList.contains('focused'))); i++) {
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');
  await item.waitFor({ state: 'detached', timeout: 5_000 }).catch(() => {});
  return label;
}

/** Screenshot of the whole page (workbench) to `file` (directories are created). */
export async function screenshot(page, file) {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await page.screenshot({ path: file });
  return file;
}

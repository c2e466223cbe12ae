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
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
];
const MOD = 'Control'; // code-server on Linux: Ctrl-based keybindings

let pw;
/** playwright-core from $E2E_HOME/tools (or, failing that, from the current project). */
export function playwright() {
  if (pw) return pw;
  const bases = [path.join(E2E_HOME, 'tools', 'package.json'), path.join(process.cwd(), 'package.json')];
  for (const base of bases) {
    try {
      pw = createRequire(base)('playwright-core');
      return pw;
    } catch {
      /* next */
    }
  }
  throw new Error(`playwright-core not found in ${E2E_HOME}/tools: run "bash scripts/e2e/install.sh" first`);
}

const browsers = new Set();
const pages = [];

/** Launch headless Debian Chromium. Closed by closeAll() (run.mjs does it at the end). */
export async function launchBrowser() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run "bash scripts/e2e/install.sh"`);
  const browser = await playwright().chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    // run.mjs handles signals itself and calls closeAll()
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
  browsers.add(browser);
  browser.on('disconnected', () => browsers.delete(browser));
  return browser;
}

/** New page (1400x900) in a fresh browser context. */
export async function newPage(browser, { viewport = { width: 1400, height: 900 } } = {}) {
  const context = await (browser ?? (await launchBrowser())).newContext({ viewport });
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
export function openPages() {
  return pages.filter((p) => !p.isClosed());
}

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
  await page.locator('.editor-group-container.active .tab.active', { hasText: base }).waitFor({ timeout });
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
      const ok =
        expect === undefined ? last.length > 0 : expect instanceof RegExp ? expect.test(last) : last.includes(expect);
      if (ok) return last;
    } catch {
      /* no hover yet */
    }
    if (Date.now() > end) {
      throw new Error(
        `no hover${expect ? ` matching ${expect}` : ''} over "${text}" (last hover: ${JSON.stringify(last)})`,
      );
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
    const ok =
      waitFor === undefined
        ? true
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
    try {
      await item.waitFor({ timeout: 3_000 });
      break;
    } catch (e) {
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

/** The VRAM panel's document (the webview's inner frame). */
export function panelFrame(page) {
  return page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
}

/**
 * Switch the colour theme through the workspace settings (the workbench applies them live) and wait until the
 * workbench wears it. `kind`: 'vs' | 'vs-dark' | 'hc-black' | 'hc-light' (the class on .monaco-workbench).
 */
export async function setColorTheme(page, workspace, theme, kind, { timeout = 20_000 } = {}) {
  const settingsFile = path.join(workspace, '.vscode', 'settings.json');
  const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  settings['workbench.colorTheme'] = theme;
  fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
  await page.waitForFunction(
    (k) => {
      const w = document.querySelector('.monaco-workbench');
      return !!w && w.classList.contains(k);
    },
    kind,
    { timeout },
  );
}

/**
 * WCAG contrast of rendered text in a frame: for every element matching each selector (visible or inside a closed
 * <details>), the computed text colour (fill for SVG text) against the background it sits on, alpha layers
 * composited from the page down. Returns [{ label, selector, count, min, worst: { text, fg, bg } }].
 */
export async function measureContrast(frame, checks) {
  return frame.locator('body').evaluate((body, list) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    const rgba = (css) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = '#010203';
      ctx.fillStyle = css;
      if (ctx.fillStyle === '#010203' && !/^#010203$/i.test(css)) throw new Error(`cannot read colour ${css}`);
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      return [d[0], d[1], d[2], d[3] / 255];
    };
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
    const lum = (c) => {
      const ch = (v) => {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2]);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    const hex = (c) =>
      '#' +
      c
        .slice(0, 3)
        .map((v) => Math.round(v).toString(16).padStart(2, '0'))
        .join('');
    const backgroundOf = (el) => {
      const chain = [];
      for (let e = el; e; e = e.parentElement) chain.unshift(e);
      let bg = [255, 255, 255, 1];
      const root = rgba(getComputedStyle(document.documentElement).backgroundColor);
      if (root[3] > 0) bg = over(root, bg);
      for (const e of chain) {
        const c = rgba(getComputedStyle(e).backgroundColor);
        if (c[3] > 0) bg = over(c, bg);
      }
      return bg;
    };
    return list.map(({ label, selector }) => {
      const els = [...document.querySelectorAll(selector)]
        .filter((e) => (e.textContent ?? '').trim() !== '')
        .slice(0, 60);
      let min = Infinity;
      let worst = null;
      for (const el of els) {
        const cs = getComputedStyle(el);
        const isSvg = el instanceof SVGElement;
        const bg = backgroundOf(isSvg ? el.closest('svg').parentElement : el);
        const fg = over(rgba(isSvg ? cs.fill : cs.color), bg);
        const r = ratio(fg, bg);
        if (r < min) {
          min = r;
          worst = { text: (el.textContent ?? '').trim().slice(0, 60), fg: hex(fg), bg: hex(bg) };
        }
      }
      return { label, selector, count: els.length, min: els.length ? Math.round(min * 100) / 100 : null, worst };
    });
  }, checks);
}

/**
 * Screenshot of the whole VRAM panel: the side bar and the bottom panel closed and the window made wide and tall
 * enough for the panel's content, then put back. Run it with the focus in an editor (commands come from F1).
 */
export async function screenshotPanel(page, file) {
  const frame = panelFrame(page);
  const height = await frame
    .locator('main')
    .evaluate((m) => m.scrollHeight + 40)
    .catch(() => 1600);
  const size = page.viewportSize();
  const sidebar = await page.locator('.part.sidebar').isVisible();
  if (sidebar) await runCommand(page, 'View: Close Primary Side Bar');
  if (await page.locator('.part.panel.bottom').isVisible()) await runCommand(page, 'View: Hide Panel');
  await page.setViewportSize({ width: 1800, height: Math.min(6000, Math.max(900, height + 120)) });
  await page.waitForTimeout(800);
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await page.locator('iframe.webview.ready').first().screenshot({ path: file });
  await page.setViewportSize(size);
  if (sidebar) await runCommand(page, 'View: Toggle Primary Side Bar Visibility');
  await page.waitForTimeout(300);
  return file;
}

/**
 * The rendered colour of each breakdown group's swatch (the legend's, composited over its background) and the
 * smallest CIEDE2000 difference between two of them: [{ group, color }], { min, pair }.
 */
export async function measureSwatches(frame) {
  return frame.locator('body').evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true });
    const rgba = (css) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      const d = ctx.getImageData(0, 0, 1, 1).data;
      return [d[0], d[1], d[2], d[3] / 255];
    };
    const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
    const lab = ([r, g, b]) => {
      const lin = (v) => {
        v /= 255;
        return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      };
      const [R, G, B] = [lin(r), lin(g), lin(b)];
      const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
      const X = f((0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047),
        Y = f(0.2126 * R + 0.7152 * G + 0.0722 * B),
        Z = f((0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883);
      return [116 * Y - 16, 500 * (X - Y), 200 * (Y - Z)];
    };
    // CIEDE2000 (Sharma, Wu and Dalal 2005).
    const de2000 = ([L1, a1, b1], [L2, a2, b2]) => {
      const rad = Math.PI / 180;
      const C1 = Math.hypot(a1, b1),
        C2 = Math.hypot(a2, b2),
        Cb = (C1 + C2) / 2;
      const G = 0.5 * (1 - Math.sqrt(Cb ** 7 / (Cb ** 7 + 25 ** 7)));
      const a1p = (1 + G) * a1,
        a2p = (1 + G) * a2;
      const C1p = Math.hypot(a1p, b1),
        C2p = Math.hypot(a2p, b2);
      const h = (b, a) => {
        const d = Math.atan2(b, a) / rad;
        return d < 0 ? d + 360 : d;
      };
      const h1p = h(b1, a1p),
        h2p = h(b2, a2p);
      const dLp = L2 - L1,
        dCp = C2p - C1p;
      let dhp = C1p * C2p === 0 ? 0 : h2p - h1p;
      if (dhp > 180) dhp -= 360;
      else if (dhp < -180) dhp += 360;
      const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * rad);
      const Lbp = (L1 + L2) / 2,
        Cbp = (C1p + C2p) / 2;
      let hbp = h1p + h2p;
      if (C1p * C2p !== 0) hbp = Math.abs(h1p - h2p) <= 180 ? hbp / 2 : hbp < 360 ? (hbp + 360) / 2 : (hbp - 360) / 2;
      const T =
        1 -
        0.17 * Math.cos((hbp - 30) * rad) +
        0.24 * Math.cos(2 * hbp * rad) +
        0.32 * Math.cos((3 * hbp + 6) * rad) -
        0.2 * Math.cos((4 * hbp - 63) * rad);
      const dth = 30 * Math.exp(-(((hbp - 275) / 25) ** 2));
      const Rc = 2 * Math.sqrt(Cbp ** 7 / (Cbp ** 7 + 25 ** 7));
      const Sl = 1 + (0.015 * (Lbp - 50) ** 2) / Math.sqrt(20 + (Lbp - 50) ** 2),
        Sc = 1 + 0.045 * Cbp,
        Sh = 1 + 0.015 * Cbp * T;
      const Rt = -Math.sin(2 * dth * rad) * Rc;
      return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
    };
    const bg = rgba(getComputedStyle(document.body).backgroundColor);
    const groups = ['weights', 'optimizer', 'gradients', 'activations', 'loss', 'buffers', 'runtime'];
    const colors = groups.map((g) => {
      const probe = document.createElement('span');
      probe.className = `swatch seg-${g}`;
      document.body.append(probe);
      const c = over(rgba(getComputedStyle(probe).backgroundColor), bg);
      probe.remove();
      return { group: g, color: '#' + c.map((v) => Math.round(v).toString(16).padStart(2, '0')).join(''), lab: lab(c) };
    });
    let min = { de: Infinity, pair: [] };
    for (let i = 0; i < colors.length; i++) {
      for (let j = i + 1; j < colors.length; j++) {
        const de = de2000(colors[i].lab, colors[j].lab);
        if (de < min.de) min = { de: Math.round(de * 10) / 10, pair: [colors[i].group, colors[j].group] };
      }
    }
    return { colors: colors.map(({ group, color }) => ({ group, color })), min };
  });
}

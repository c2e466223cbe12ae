// UI test driving the real workbench in headless Chromium (scripts/e2e/run.mjs --ui): the hover answers first (the
// verdict, then what the key does; screenshots in the light and dark themes), the Problems panel lists the
// diagnostic, the quick fix edits the file, and the VRAM panel renders its breakdown in the light, dark and both
// high-contrast themes with every text element at 4.5:1 or more (measured from the rendered colours; the figures go
// to contrast.json), folds the advice these files cannot take, confirms an Apply with a link to the edited file,
// writes a what-if back, and Select GPU asks where to save.
// Screenshots of the workbench and of the whole panel in each theme go to the screenshots folder.
import fs from 'node:fs';
import path from 'node:path';
import {
  hoverAt,
  measureContrast,
  measureSwatches,
  openFile,
  openWorkbench,
  panelFrame,
  readProblems,
  runCommand,
  runQuickFix,
  screenshot,
  screenshotPanel,
  setColorTheme,
} from '../../../scripts/e2e/ui.mjs';

/** The default themes and the body class VS Code gives the webview in each. */
const THEMES = [
  { theme: 'Default Dark Modern', kind: 'vs-dark', body: 'vscode-dark', name: 'dark' },
  { theme: 'Default Light Modern', kind: 'vs', body: 'vscode-light', name: 'light' },
  { theme: 'Default High Contrast', kind: 'hc-black', body: 'vscode-high-contrast', name: 'hc-dark' },
  { theme: 'Default High Contrast Light', kind: 'hc-light', body: 'vscode-high-contrast-light', name: 'hc-light' },
];

/** Text whose colour carries meaning or that a user reads, by what it is. */
const TEXT = [
  ['file name', '.head .file'],
  ['header details', '.head .meta span'],
  ['per-GPU figure', '.big-num'],
  ['fit badge', '.summary .status'],
  ['summary facts', '.summary .facts span'],
  ['chart labels', 'svg .chart-text'],
  ['legend rows', '.legend tbody th'],
  ['table headings', 'thead th'],
  ['phase notes', '.phases .note'],
  ['formulas', '.components-table code'],
  ['fit-map cells', '.fitgrid button.cell'],
  ['fit-map key', '.legend-line .key'],
  ['advice titles', '.advice-title'],
  ['savings', '.saves'],
  ['tags', '.tag'],
  ['changes in words', '.changes'],
  ['folds', 'details > summary'],
  ['reasons', '.why'],
  ['notices', '.notice'],
  ['what-if note', '#whatif-writes'],
  ['key links', '.linkish'],
  ['assumption sources', '.assumptions td.muted'],
];

export default async function features({ url, screenshots, workspace, check }) {
  let page;
  if (
    !(await check('workbench loads', async () => {
      page = await openWorkbench(url);
    }))
  )
    return;
  await check(
    'hover on micro_batch_size answers first: the verdict, then the cost of one more micro-batch',
    async () => {
      await openFile(page, 'run.vram.yaml');
      const text = await hoverAt(page, 'micro_batch_size', { expect: /micro-batch 4 -> 5: \+/ });
      // The hover's own first line is the verdict with the key (the diagnostic's message has no key), the next its what-ifs.
      const lines = text
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      const first = lines.findIndex((l) =>
        /^[\d.]+ GiB > 23\.6 GiB on RTX-4090 \([\d.]+ GiB over\) · micro_batch_size$/.test(l),
      );
      if (first < 0 || !/^micro-batch 4 -> 5: \+/.test(lines[first + 1] ?? '')) throw new Error(`hover: ${text}`);
      await page.waitForTimeout(600); // the hover fades in
      await screenshot(page, path.join(screenshots, 'hover.png'));
      await page.mouse.move(2, 2);
    },
  );
  for (const t of THEMES.slice(0, 2)) {
    await check(
      `the hover on seq_len in ${t.theme}: verdict, what-ifs, the largest terms, the panel link`,
      async () => {
        await setColorTheme(page, workspace, t.theme, t.kind);
        await openFile(page, 'run.vram.yaml');
        const text = await hoverAt(page, 'seq_len', { expect: /Full breakdown, formulas and advice/ });
        const lines = text
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
        const first = lines.findIndex((l) =>
          /^[\d.]+ GiB > 23\.6 GiB on RTX-4090 \([\d.]+ GiB over\) · seq_len$/.test(l),
        );
        if (
          first < 0 ||
          !/^sequence 2048 -> 4096: \+/.test(lines[first + 1] ?? '') ||
          !/= device \(nvidia-smi\)/.test(text)
        )
          throw new Error(`hover: ${text}`);
        await page.waitForTimeout(600); // the hover fades in
        await screenshot(page, path.join(screenshots, `hover-${t.name}.png`));
        await page.mouse.move(2, 2);
      },
    );
  }
  await check('the Problems panel lists exceeds-gpu-memory', async () => {
    const rows = await readProblems(page, { waitFor: /exceeds-gpu-memory/ });
    if (!rows.some((r) => /RTX-4090/.test(r))) throw new Error(`rows: ${JSON.stringify(rows)}`);
    await screenshot(page, path.join(screenshots, 'problems.png'));
  });
  await check('the quick fix "Gradient checkpointing" edits the file', async () => {
    await runQuickFix(page, /-[\d.]+ GiB · Gradient checkpointing \(/, { at: 'micro_batch_size' });
    // The fix is applied by the language server (a round trip): wait for the edit, then save from the editor.
    await page
      .locator('.editor-group-container.active .view-lines', { hasText: 'gradient_checkpointing: full' })
      .first()
      .waitFor({ timeout: 10_000 });
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+S');
    const file = path.join(workspace, 'run.vram.yaml');
    const end = Date.now() + 10_000;
    while (!/gradient_checkpointing: full/.test(fs.readFileSync(file, 'utf8')) && Date.now() < end)
      await page.waitForTimeout(200);
    if (!/gradient_checkpointing: full/.test(fs.readFileSync(file, 'utf8')))
      throw new Error(fs.readFileSync(file, 'utf8'));
    await readProblems(page, { waitFor: /no problems|^$/i, timeout: 15_000 }).catch(() => undefined);
  });
  const contrast = {};
  for (const t of THEMES) {
    await check(`the VRAM panel renders the breakdown with readable text (${t.theme})`, async () => {
      await setColorTheme(page, workspace, t.theme, t.kind);
      await openFile(page, 'train.sh');
      await runCommand(page, 'VRAM Lens: Open Panel');
      const frame = panelFrame(page);
      await frame.locator('text=/Memory breakdown/').first().waitFor({ timeout: 30_000 });
      await frame.locator(`body.${t.body}`).waitFor({ timeout: 10_000 });
      await frame.locator('.advice-blocked').first().waitFor({ timeout: 15_000 });
      const body = await frame.locator('body').innerText();
      if (!/GiB/.test(body)) throw new Error(`panel: ${body.slice(0, 400)}`);
      // Open the folds so that what they hold is measured and shown.
      await frame.locator('body').evaluate(() =>
        document.querySelectorAll('details').forEach((d) => {
          d.open = true;
        }),
      );
      await page.waitForTimeout(500);
      const checks = TEXT.map(([label, selector]) => ({ label, selector }));
      const fileState = await measureContrast(frame, checks);
      const swatches = await measureSwatches(frame);
      await screenshot(page, path.join(screenshots, `panel-${t.name}.png`));
      await screenshotPanel(page, path.join(screenshots, `panel-full-${t.name}.png`));
      // A what-if that does not fit brings the "does not fit" badge, the what-if banner and the write line.
      await frame.locator('#ctl-micro input').fill('64');
      await frame.locator('.summary .status-oom').waitFor({ timeout: 10_000 });
      await frame.locator('#whatif-writes').waitFor({ state: 'visible', timeout: 5_000 });
      const whatIfState = await measureContrast(frame, [
        ...checks,
        { label: 'what-if banner', selector: '.whatif-banner' },
      ]);
      await frame.locator('#whatif-reset').click();
      // Reset focuses a control in the panel, which keeps the workbench's keys (Ctrl+P) to itself: click an editor.
      await page.locator('.editor-group-container .monaco-editor .view-lines').first().click();
      const measured = whatIfState.map((m) => {
        const f = fileState.find((x) => x.label === m.label);
        return f && f.min !== null && (m.min === null || f.min < m.min)
          ? { ...f, count: f.count + m.count }
          : { ...m, count: m.count + (f?.count ?? 0) };
      });
      contrast[t.theme] = { text: measured, swatches };
      // Seven groups, seven hues: no two swatches closer than 20 (CIEDE2000; 2.3 is a just-noticeable difference).
      if (swatches.min.de < 20) throw new Error(`swatches too alike: ${JSON.stringify(swatches)}`);
      const low = measured.filter((m) => m.min !== null && m.min < 4.5);
      if (low.length > 0) throw new Error(`contrast below 4.5:1: ${JSON.stringify(low)}`);
      const missing = measured.filter((m) => m.count === 0 && m.label !== 'notices');
      if (missing.length > 0) throw new Error(`nothing rendered for ${missing.map((m) => m.label).join(', ')}`);
    });
  }
  const saveContrast = () => {
    fs.mkdirSync(screenshots, { recursive: true });
    fs.writeFileSync(path.join(screenshots, 'contrast.json'), `${JSON.stringify(contrast, null, 1)}\n`);
  };
  saveContrast();
  await setColorTheme(page, workspace, 'Default Dark Modern', 'vs-dark').catch(() => undefined);
  /** The notice's text and icon, at 4.5:1 (in the theme the checks below run in), added to contrast.json. */
  const checkNoticeContrast = async (frame, what) => {
    const m = await measureContrast(frame, [
      { label: `notice (${what})`, selector: '.notice' },
      { label: `notice icon (${what})`, selector: '.notice-icon' },
    ]);
    (contrast['Default Dark Modern'].notices ??= []).push(...m);
    saveContrast();
    const low = m.filter((x) => x.min !== null && x.min < 4.5);
    if (low.length > 0) throw new Error(`contrast below 4.5:1: ${JSON.stringify(low)}`);
  };

  await check('the advice lists what these files can take first and folds the rest under why', async () => {
    await openFile(page, 'train.py');
    await runCommand(page, 'VRAM Lens: Open Panel');
    const frame = panelFrame(page);
    await frame.locator('text=/train\\.py/').first().waitFor({ timeout: 30_000 });
    // train.sh's run names train.py too: wait until the panel has switched to train.py's own advice, then check it.
    const fold = frame.locator('.advice-blocked > summary');
    await fold
      .filter({ hasText: /cannot be applied to train\.py: / })
      .waitFor({ timeout: 30_000 })
      .catch(() => undefined);
    await fold.first().waitFor({ timeout: 15_000 });
    const line = (await fold.first().innerText()).trim();
    if (!/more cannot be applied to train\.py: /.test(line)) throw new Error(`fold: ${line}`);
    const shown = await frame.locator('.advice-body > ol.advice-list > li').count();
    if (shown < 1 || shown > 6) throw new Error(`${shown} items before the fold`);
    if ((await frame.locator('vscode-button[data-advice][disabled]').count()) > 0)
      throw new Error('a disabled Apply is shown');
    const words = await frame.locator('.changes').allInnerTexts();
    const json = words.filter((w) => /[{}"]|\[/.test(w));
    if (json.length > 0) throw new Error(`raw values: ${JSON.stringify(json)}`);
    await frame.locator('.advice-blocked > summary').click();
    await frame.locator('.advice-blocked .why').first().waitFor({ timeout: 5_000 });
    await frame.locator('#advice').scrollIntoViewIfNeeded();
    await screenshot(page, path.join(screenshots, 'panel-advice.png'));
  });

  await check('a what-if control in the panel recomputes the numbers in the webview', async () => {
    await openFile(page, 'panel.vram.yaml');
    await runCommand(page, 'VRAM Lens: Open Panel');
    const frame = panelFrame(page);
    const big = frame.locator('.big-num').first();
    await frame.locator('text=/panel\\.vram\\.yaml/').first().waitFor({ timeout: 30_000 });
    const before = (await big.innerText()).trim();
    await frame.locator('#ctl-micro input').fill('1');
    const end = Date.now() + 10_000;
    let after = before;
    while (after === before && Date.now() < end) {
      await page.waitForTimeout(100);
      after = (await big.innerText()).trim();
    }
    if (after === before) throw new Error(`still ${before} after micro-batch 1`);
    await frame.locator('.whatif-banner').first().waitFor({ timeout: 5_000 });
    await screenshot(page, path.join(screenshots, 'panel-whatif.png'));
    await frame.locator('#whatif-reset').click();
  });
  await check('Apply in the panel edits the file, says what it wrote where, and the diagnostic clears', async () => {
    const frame = panelFrame(page);
    await readProblems(page, { waitFor: /exceeds-gpu-memory/ });
    const editorText = async () =>
      (await page.locator('.editor-group-container .monaco-editor .view-lines').allInnerTexts()).join('\n');
    const before = await editorText();
    const button = frame.locator('vscode-button[data-advice]').first();
    await button.waitFor({ timeout: 15_000 });
    const words = (await frame.locator('.advice .changes').first().innerText()).trim();
    await button.click();
    const end = Date.now() + 15_000;
    while ((await editorText()) === before && Date.now() < end) await page.waitForTimeout(200);
    if ((await editorText()) === before) throw new Error('the file did not change');
    const notice = frame.locator('#advice-notice .notice-applied');
    await notice.waitFor({ timeout: 10_000 });
    const said = (await notice.innerText()).replace(/\s+/g, ' ').trim();
    if (!said.includes(`Applied: ${words} in panel.vram.yaml`))
      throw new Error(`notice: ${said} (expected the change "${words}")`);
    await checkNoticeContrast(frame, 'applied');
    const stop = Date.now() + 20_000;
    let rows = await readProblems(page);
    while (rows.some((r) => /exceeds-gpu-memory/.test(r)) && Date.now() < stop) {
      await page.waitForTimeout(250);
      rows = await readProblems(page);
    }
    if (rows.some((r) => /exceeds-gpu-memory/.test(r)))
      throw new Error(`diagnostic still there: ${JSON.stringify(rows)}`);
    // The notice outlives the model the edit brought, and its link brings the edited file forward.
    const link = frame.locator('#advice-notice .file-link').first();
    await link.waitFor({ timeout: 10_000 });
    await page.locator('.tab', { hasText: 'VRAM Lens' }).first().click();
    await page
      .locator('.editor-group-container.active .tab.active', { hasText: 'VRAM Lens' })
      .waitFor({ timeout: 5_000 });
    await link.click();
    await page
      .locator('.editor-group-container.active .tab.active', { hasText: 'panel.vram.yaml' })
      .waitFor({ timeout: 10_000 });
    await screenshot(page, path.join(screenshots, 'panel-applied.png'));
  });

  await check(
    '"Write these changes to the file" sends the what-if to the server and says what came of it',
    async () => {
      const frame = panelFrame(page);
      await openFile(page, 'panel.vram.yaml');
      await runCommand(page, 'VRAM Lens: Open Panel');
      await frame.locator('text=/panel\\.vram\\.yaml/').first().waitFor({ timeout: 30_000 });
      await frame.locator('#ctl-seq input').fill('1024');
      const writes = frame.locator('#whatif-writes');
      await writes.waitFor({ state: 'visible', timeout: 10_000 });
      const line = (await writes.innerText()).trim();
      if (line !== 'Writes: sequence length 1024') throw new Error(`writes line: ${line}`);
      await frame.locator('#whatif-write').click();
      const notice = frame.locator('#whatif-notice .notice:not(.notice-pending)');
      await notice.waitFor({ timeout: 15_000 });
      const said = (await notice.innerText()).replace(/\s+/g, ' ').trim();
      if (!(await notice.evaluate((n) => n.classList.contains('notice-applied'))))
        throw new Error(`not applied: ${said}`);
      // The server writes it through the client: the editor and then the saved file hold the new value (Monaco renders
      // spaces as no-break spaces, which \s matches).
      if (!/Applied: sequence length 1024 in panel\.vram\.yaml/.test(said)) throw new Error(`notice: ${said}`);
      const text = await page.locator('.editor-group-container .monaco-editor .view-lines').first().innerText();
      if (!/seq_len:\s1024/.test(text)) throw new Error(`editor: ${text}`);
      await checkNoticeContrast(frame, 'written');
      // The status bar keeps speaking for the file while the panel has the focus.
      const item = page.locator('.statusbar-item', { hasText: /VRAM [\d.]+ \/ 23\.6 GiB \(RTX-4090\)/ });
      await item.first().waitFor({ timeout: 10_000 });
      await screenshot(page, path.join(screenshots, 'panel-whatif-write.png'));
      // Once the panel has the written file back, its controls equal the file and Reset is disabled (whatif-form.ts):
      // wait for that instead of clicking Reset, which raced the update (a disabled vscode-button takes no click).
      await frame.locator('#whatif-reset[disabled]').waitFor({ timeout: 15_000 });
    },
  );

  await check('Select GPU asks whether to save for the workspace or the user, and writes where asked', async () => {
    const settingsFile = path.join(workspace, '.vscode', 'settings.json');
    const saved = fs.readFileSync(settingsFile, 'utf8');
    await runCommand(page, 'VRAM Lens: Select GPU');
    const input = page.locator('.quick-input-widget input');
    await input.fill('A100-80GB');
    await page
      .locator('.quick-input-list .monaco-list-row', { hasText: 'A100-80GB' })
      .first()
      .waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Workspace' }).first();
    await row.waitFor({ timeout: 10_000 });
    if (!(await page.locator('.quick-input-list .monaco-list-row', { hasText: 'User' }).first().isVisible()))
      throw new Error('no User choice');
    await screenshot(page, path.join(screenshots, 'select-gpu-target.png'));
    await input.fill('Workspace');
    await page.keyboard.press('Enter');
    // VS Code rewrites the file in place: a read between its truncation and its write sees it empty, so a file that
    // does not parse yet is read again.
    const readSettings = () => {
      try {
        return JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      } catch {
        return {};
      }
    };
    const end = Date.now() + 10_000;
    while (readSettings()['vramLens.gpu'] !== 'A100-80GB' && Date.now() < end) await page.waitForTimeout(200);
    const now = readSettings();
    fs.writeFileSync(settingsFile, saved);
    if (now['vramLens.gpu'] !== 'A100-80GB') throw new Error(`settings: ${JSON.stringify(now)}`);
  });
}

// UI test driving the real workbench in headless Chromium (scripts/e2e/run.mjs --ui): the hover shows the
// breakdown, the Problems panel lists the diagnostic, the quick fix edits the file, and the VRAM panel renders
// its breakdown; screenshots (light and dark theme) go to the screenshots folder.
import fs from 'node:fs';
import path from 'node:path';
import { hoverAt, openFile, openWorkbench, readProblems, runCommand, runQuickFix, screenshot } from '../../../scripts/e2e/ui.mjs';

export default async function features({ url, screenshots, workspace, check }) {
  let page;
  if (!await check('workbench loads', async () => { page = await openWorkbench(url); })) return;
  await check('hover on micro_batch_size shows the per-GPU breakdown and the cost of one more micro-batch', async () => {
    await openFile(page, 'run.vram.yaml');
    const text = await hoverAt(page, 'micro_batch_size', { expect: /peak allocated/ });
    if (!/micro-batch 4 -> 5: \+/.test(text)) throw new Error(`hover: ${text}`);
    await screenshot(page, path.join(screenshots, 'hover.png'));
    await page.mouse.move(2, 2);
  });
  await check('the Problems panel lists exceeds-gpu-memory', async () => {
    const rows = await readProblems(page, { waitFor: /exceeds-gpu-memory/ });
    if (!rows.some((r) => /RTX-4090/.test(r))) throw new Error(`rows: ${JSON.stringify(rows)}`);
    await screenshot(page, path.join(screenshots, 'problems.png'));
  });
  await check('the quick fix "Enable gradient checkpointing" edits the file', async () => {
    await runQuickFix(page, 'Enable gradient checkpointing', { at: 'micro_batch_size' });
    // The fix is applied by the language server (a round trip): wait for the edit, then save from the editor.
    await page.locator('.editor-group-container.active .view-lines', { hasText: 'gradient_checkpointing: full' }).first().waitFor({ timeout: 10_000 });
    await page.locator('.editor-group-container.active .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+S');
    const file = path.join(workspace, 'run.vram.yaml');
    const end = Date.now() + 10_000;
    while (!/gradient_checkpointing: full/.test(fs.readFileSync(file, 'utf8')) && Date.now() < end) await page.waitForTimeout(200);
    if (!/gradient_checkpointing: full/.test(fs.readFileSync(file, 'utf8'))) throw new Error(fs.readFileSync(file, 'utf8'));
    await readProblems(page, { waitFor: /no problems|^$/i, timeout: 15_000 }).catch(() => undefined);
  });
  for (const theme of ['Default Dark Modern', 'Default Light Modern']) {
    await check(`the VRAM panel renders the breakdown (${theme})`, async () => {
      // The workbench applies a changed workspace setting live.
      const settingsFile = path.join(workspace, '.vscode', 'settings.json');
      const settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      settings['workbench.colorTheme'] = theme;
      fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
      const dark = theme.includes('Dark');
      await page.waitForFunction((d) => { const w = document.querySelector('.monaco-workbench'); return !!w && w.classList.contains(d ? 'vs-dark' : 'vs'); }, dark, { timeout: 20_000 });
      await openFile(page, 'ds_config.json');
      await runCommand(page, 'VRAM Lens: Open Panel');
      const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
      await frame.locator('text=/Memory breakdown/').first().waitFor({ timeout: 30_000 });
      const body = await frame.locator('body').innerText();
      if (!/GiB/.test(body)) throw new Error(`panel: ${body.slice(0, 400)}`);
      await page.waitForTimeout(500);
      await screenshot(page, path.join(screenshots, `panel-${theme.includes('Dark') ? 'dark' : 'light'}.png`));
    });
  }
  await check('a what-if control in the panel recomputes the numbers in the webview', async () => {
    await openFile(page, 'panel.vram.yaml');
    await runCommand(page, 'VRAM Lens: Open Panel');
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
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
  await check('Apply in the panel edits the file and the diagnostic clears', async () => {
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('iframe#active-frame');
    await readProblems(page, { waitFor: /exceeds-gpu-memory/ });
    const editorText = async () => page.locator('.editor-group-container .monaco-editor .view-lines').first().innerText();
    const before = await editorText();
    const button = frame.locator('vscode-button[data-advice]:not([disabled])').first();
    await button.waitFor({ timeout: 15_000 });
    await button.click();
    const end = Date.now() + 15_000;
    while ((await editorText()) === before && Date.now() < end) await page.waitForTimeout(200);
    if ((await editorText()) === before) throw new Error('the file did not change');
    const stop = Date.now() + 20_000;
    let rows = await readProblems(page);
    while (rows.some((r) => /exceeds-gpu-memory/.test(r)) && Date.now() < stop) {
      await page.waitForTimeout(250);
      rows = await readProblems(page);
    }
    if (rows.some((r) => /exceeds-gpu-memory/.test(r))) throw new Error(`diagnostic still there: ${JSON.stringify(rows)}`);
    await screenshot(page, path.join(screenshots, 'panel-applied.png'));
  });
}

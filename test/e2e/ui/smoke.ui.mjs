// UI smoke test, run by scripts/e2e/run.mjs --ui test/e2e/ui/smoke.ui.mjs
// ctx: { url, baseUrl, workspace, extension, screenshots, log, check(name, fn) }; every check counts
// as one e2e test. Workspace: test/e2e/fixtures/workspace (ds_config.json).
import path from 'node:path';
import { openWorkbench, openFile, screenshot } from '../../../scripts/e2e/ui.mjs';

export default async function smoke({ url, screenshots, check }) {
  let page;
  if (
    !(await check('workbench loads with the workspace', async () => {
      page = await openWorkbench(url);
    }))
  )
    return;
  await check('Quick Open opens ds_config.json', async () => {
    await openFile(page, 'ds_config.json');
    await page
      .locator('.monaco-editor .view-lines', { hasText: 'train_micro_batch_size_per_gpu' })
      .waitFor({ timeout: 15_000 });
  });
  await check('screenshot of the workbench', async () => {
    await screenshot(page, path.join(screenshots, 'smoke-workbench.png'));
  });
}

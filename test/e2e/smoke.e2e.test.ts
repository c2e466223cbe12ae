// Smoke suite run inside the real VS Code extension host (see test/e2e/index.ts).
// Workspace: test/e2e/fixtures/workspace (contains ds_config.json).
import * as assert from 'assert';
import * as vscode from 'vscode';

const EXTENSION_ID = 'vram-lens.vram-lens';

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('VRAM Lens smoke (real extension host)', () => {
  test('runs in a real VS Code >= 1.100 with a workspace folder', () => {
    assert.match(vscode.version, /^1\.\d+\.\d+/);
    const [major = 0, minor = 0] = vscode.version.split('.').map(Number);
    assert.ok(major > 1 || minor >= 100, `VS Code ${vscode.version}`);
    assert.ok(vscode.workspace.workspaceFolders?.length, 'a workspace folder is open');
  });

  test(`extension ${EXTENSION_ID} is present`, () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} not found (engines.vscode newer than the server? see the server log)`);
  });

  test('extension activates when ds_config.json is opened', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const [file] = await vscode.workspace.findFiles('**/ds_config.json', '**/node_modules/**', 1);
    assert.ok(file, 'ds_config.json in the workspace');
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    // no ext.activate() here: the extension's own activation events must fire
    await waitFor(() => ext.isActive, 20_000, `${EXTENSION_ID} to activate`);
    assert.strictEqual(ext.isActive, true);
  });
});

// The extension inside a real VS Code extension host: hovers in each format, diagnostics that appear and
// disappear as the file changes, quick fixes that apply and clear the diagnostic, and settings that re-run.
// Workspace: test/e2e/fixtures/workspace (a copy; tests may edit files). GPU setting: RTX-4090 (24 GB).
import * as assert from 'assert';
import * as vscode from 'vscode';

async function open(name: string): Promise<vscode.TextDocument> {
  const [file] = await vscode.workspace.findFiles(name, '**/node_modules/**', 1);
  assert.ok(file, `${name} in the workspace`);
  const doc = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(doc);
  return doc;
}

function ours(uri: vscode.Uri, code?: string): vscode.Diagnostic[] {
  return vscode.languages
    .getDiagnostics(uri)
    .filter(
      (d) =>
        d.source === 'vram-lens' &&
        (code === undefined || (typeof d.code === 'object' && d.code !== null && String(d.code.value) === code)),
    );
}

/** Waits for the diagnostics of `uri` to satisfy `cond`, using onDidChangeDiagnostics (no fixed sleeps). */
async function waitForDiagnostics(
  uri: vscode.Uri,
  cond: () => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  if (cond()) return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${what}; have: ${JSON.stringify(ours(uri).map((d) => d.message))}`));
    }, timeoutMs);
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === uri.toString()) && cond()) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

/** The hover's first line: the verdict against the GPU of the settings (RTX-4090), then the hovered key. */
const VERDICT =
  /^\*\*(fits: [\d.]+ GiB of 23\.6 GiB on RTX-4090|[\d.]+ GiB > 23\.6 GiB on RTX-4090 \([\d.]+ GiB over\))\*\* · `/m;

/**
 * The hover text at `needle`. A hover asked for while the language server is still starting comes back empty, so it
 * is asked again until it has text (up to 20 s), as waitForDiagnostics waits for diagnostics.
 */
async function hoverText(doc: vscode.TextDocument, needle: string, delta = 1): Promise<string> {
  const offset = doc.getText().indexOf(needle);
  assert.ok(offset >= 0, `${needle} in ${doc.fileName}`);
  const end = Date.now() + 20_000;
  for (;;) {
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
      'vscode.executeHoverProvider',
      doc.uri,
      doc.positionAt(offset + delta),
    );
    const text = hovers
      .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')))
      .join('\n');
    if (text.trim().length > 0 || Date.now() > end) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('VRAM Lens features (real extension host)', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension('vram-lens.vram-lens');
    assert.ok(ext);
    await open('run.vram.yaml');
    const end = Date.now() + 20_000;
    while (!ext.isActive && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.ok(ext.isActive, 'activated by its own activation events');
  });

  test('hover in a scenario file: the verdict first, then the cost of one more micro-batch', async () => {
    const doc = await open('run.vram.yaml');
    const text = await hoverText(doc, 'micro_batch_size');
    const lines = text.split('\n').filter((l) => l.trim().length > 0);
    assert.match(lines[0], /^\*\*[\d.]+ GiB > 23\.6 GiB on RTX-4090 \([\d.]+ GiB over\)\*\* · `micro_batch_size`$/);
    assert.match(lines[1], /^micro-batch 4 -> 5: \+/);
    // The diagnostic at this key lists the largest terms; the hover does not repeat them, and links to the panel.
    assert.doesNotMatch(text, /vram-breakdown|peak allocated/);
    assert.match(text, /command:vramLens\.openPanel/);
    // A key without the diagnostic: the verdict, its what-ifs, then a small block of the largest terms.
    const seq = await hoverText(doc, 'seq_len');
    assert.match(seq, VERDICT);
    const block = /```vram-breakdown\n([\s\S]*?)\n```/.exec(seq)?.[1] ?? '';
    assert.ok(block.split('\n').length <= 7 && /= device \(nvidia-smi\)/.test(block), seq);
  });

  test('hover in a DeepSpeed JSON (with its launcher beside it): what the next ZeRO stage saves', async () => {
    const doc = await open('ds_config.json');
    const text = await hoverText(doc, '"stage"', 2);
    assert.match(text, VERDICT);
    assert.match(text, /stage 2 -> 3: [+-][\d.]+ (GiB|MiB)/);
    assert.match(text, /stage 2 -> 1: \+/);
  });

  test('hover in TrainingArguments (Python), a launch script and Axolotl YAML', async () => {
    const py = await hoverText(await open('train.py'), 'per_device_train_batch_size');
    assert.match(py, VERDICT);
    assert.match(py, /micro-batch 2 -> 3/);
    const sh = await hoverText(await open('train.sh'), '--max_seq_length', 3);
    assert.match(sh, VERDICT);
    assert.match(sh, /sequence 1024 -> 2048/);
    assert.match(await hoverText(await open('axolotl.yml'), 'sequence_len'), VERDICT);
  });

  test('the VRAM Lens output channel says what was analysed: file, run, headline, time', async () => {
    await open('run.vram.yaml');
    const end = Date.now() + 15_000;
    const analysed = (l: string): boolean =>
      /analysed .*run\.vram\.yaml \[scenario\] in \d+ ms; run: .*; [\d.]+ GiB > 23\.6 GiB on RTX-4090/.test(l);
    const read = async (): Promise<string[]> => vscode.commands.executeCommand<string[]>('vramLens.internal.recentLog');
    let lines = await read();
    while (!lines.some(analysed) && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      lines = await read();
    }
    assert.ok(lines.length > 0, 'the output channel is not empty');
    assert.ok(lines.some(analysed), lines.slice(-20).join('\n'));
    assert.ok(
      lines.some((l) => /language server started in \d+ ms/.test(l)),
      lines.slice(0, 5).join('\n'),
    );
  });

  test('exceeds-gpu-memory appears on the key that drives the peak, and disappears when the file changes', async () => {
    const doc = await open('run.vram.yaml');
    await waitForDiagnostics(doc.uri, () => ours(doc.uri, 'exceeds-gpu-memory').length === 1, 'exceeds-gpu-memory');
    const d = ours(doc.uri, 'exceeds-gpu-memory')[0];
    assert.equal(doc.getText(d.range), 'micro_batch_size');
    assert.ok((d.relatedInformation ?? []).length >= 2, 'related information on the other big contributors');
    const editor = await vscode.window.showTextDocument(doc);
    const line = doc.lineAt(doc.positionAt(doc.getText().indexOf('micro_batch_size: 4')).line);
    await editor.edit((b) => b.replace(line.range, 'micro_batch_size: 1'));
    await waitForDiagnostics(
      doc.uri,
      () => ours(doc.uri, 'exceeds-gpu-memory').length === 0,
      'the diagnostic to clear',
    );
    await vscode.commands.executeCommand('undo');
    await waitForDiagnostics(
      doc.uri,
      () => ours(doc.uri, 'exceeds-gpu-memory').length === 1,
      'the diagnostic to come back',
    );
  });

  test('the preferred quick fix applies and the diagnostic goes away', async () => {
    const doc = await open('run.vram.yaml');
    await waitForDiagnostics(doc.uri, () => ours(doc.uri, 'exceeds-gpu-memory').length === 1, 'exceeds-gpu-memory');
    const d = ours(doc.uri, 'exceeds-gpu-memory')[0];
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      d.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    // The command returns actions without their diagnostics attached; ours are recognised by their titles.
    const mine = actions.filter((a) => /^-[\d.]+ (GiB|MiB) · /.test(a.title));
    assert.ok(
      mine.length >= 2,
      `quick fixes: ${actions.length} actions: ${actions.map((a) => `${a.title} [${(a.diagnostics ?? []).map((x) => x.source).join()}]`).join(' | ')}`,
    );
    assert.equal(
      new Set(mine.map((a) => a.title.replace(/^\S+ \S+ · /, ''))).size,
      mine.length,
      'no two rows name the same change',
    );
    const preferred = mine.find((a) => a.isPreferred);
    assert.ok(preferred?.command, 'one preferred fix, applied through the command that re-checks the files');
    await vscode.commands.executeCommand(preferred.command.command, ...(preferred.command.arguments ?? []));
    await waitForDiagnostics(
      doc.uri,
      () => ours(doc.uri, 'exceeds-gpu-memory').length === 0,
      'the diagnostic to clear after the fix',
    );
    await vscode.commands.executeCommand('undo');
  });

  test('every quick fix that fits alone applies in the file and clears the diagnostic', async () => {
    const doc = await open('run.vram.yaml');
    await waitForDiagnostics(doc.uri, () => ours(doc.uri, 'exceeds-gpu-memory').length === 1, 'exceeds-gpu-memory');
    const d = ours(doc.uri, 'exceeds-gpu-memory')[0];
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>(
      'vscode.executeCodeActionProvider',
      doc.uri,
      d.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fitting = actions.filter((a) => /^-[\d.]+ (GiB|MiB) · /.test(a.title) && !/still does not fit/.test(a.title));
    assert.ok(fitting.length >= 3, fitting.map((a) => a.title).join(' | '));
    const original = doc.getText();
    for (const a of fitting) {
      assert.ok(a.command, a.title);
      await vscode.commands.executeCommand(a.command.command, ...(a.command.arguments ?? []));
      assert.notEqual(doc.getText(), original, `${a.title} changed the file`);
      await waitForDiagnostics(
        doc.uri,
        () => ours(doc.uri, 'exceeds-gpu-memory').length === 0,
        `the diagnostic to clear after "${a.title}"`,
      );
      const editor = await vscode.window.showTextDocument(doc);
      await editor.edit((b) =>
        b.replace(new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), original),
      );
      await waitForDiagnostics(
        doc.uri,
        () => ours(doc.uri, 'exceeds-gpu-memory').length === 1,
        'the diagnostic back after restoring the file',
      );
    }
  });

  test('an unknown model offers Set vramLens.model and network access; a deprecated switch offers its current key', async () => {
    const folder = vscode.workspace.workspaceFolders![0].uri;
    const uri = vscode.Uri.joinPath(folder, 'unknown-model.yml');
    const text =
      'base_model: acme/not-a-real-model-7b\n' +
      'adapter: lora\n' +
      'lora_r: 16\n' +
      'sequence_len: 2048\n' +
      'micro_batch_size: 2\n' +
      'gradient_accumulation_steps: 4\n' +
      'flash_attention: true\n' +
      'bf16: true\n';
    await vscode.workspace.fs.writeFile(uri, Buffer.from(text));
    try {
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc);
      await waitForDiagnostics(
        doc.uri,
        () => ours(doc.uri, 'unknown-model').length === 1 && ours(doc.uri, 'deprecated-key').length === 1,
        'unknown-model and deprecated-key',
      );
      const model = ours(doc.uri, 'unknown-model')[0];
      assert.equal(doc.getText(model.range), 'acme/not-a-real-model-7b');
      // Said once (HF_HUB_OFFLINE in the environment replaces the network hint with a note that the Hub is not asked).
      const offline = /HF_HUB_OFFLINE/.test(model.message);
      assert.equal(model.message.match(/vramLens\.allowNetwork/g)?.length, offline ? undefined : 1, model.message);
      const titles = async (range: vscode.Range): Promise<vscode.CodeAction[]> =>
        vscode.commands.executeCommand<vscode.CodeAction[]>(
          'vscode.executeCodeActionProvider',
          doc.uri,
          range,
          vscode.CodeActionKind.QuickFix.value,
        );
      const forModel = (await titles(model.range)).map((a) => a.title);
      assert.ok(forModel.includes('Set vramLens.model for this workspace…'), forModel.join(' | '));
      assert.equal(
        forModel.includes('Allow VRAM Lens to fetch config.json from the Hugging Face Hub…'),
        !offline,
        forModel.join(' | '),
      );
      const deprecated = ours(doc.uri, 'deprecated-key')[0];
      const fix = (await titles(deprecated.range)).find(
        (a) => a.title === 'Use attn_implementation: flash_attention_2 (the current key for flash_attention)',
      );
      assert.ok(fix?.command, 'the deprecated switch has a fix');
      await vscode.commands.executeCommand(fix.command.command, ...(fix.command.arguments ?? []));
      await waitForDiagnostics(
        doc.uri,
        () => ours(doc.uri, 'deprecated-key').length === 0,
        'the deprecated-key diagnostic to clear',
      );
      assert.match(doc.getText(), /^attn_implementation: flash_attention_2$/m);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(uri);
    }
  });

  test('changing vramLens.gpu re-runs the analysis', async () => {
    const doc = await open('run.vram.yaml');
    await waitForDiagnostics(doc.uri, () => ours(doc.uri, 'exceeds-gpu-memory').length === 1, 'exceeds-gpu-memory');
    const cfg = vscode.workspace.getConfiguration('vramLens');
    await cfg.update('gpu', 'H100-80GB', vscode.ConfigurationTarget.Workspace);
    try {
      await waitForDiagnostics(
        doc.uri,
        () => ours(doc.uri, 'exceeds-gpu-memory').length === 0,
        'no diagnostic on an 80 GB GPU',
      );
    } finally {
      await cfg.update('gpu', 'RTX-4090', vscode.ConfigurationTarget.Workspace);
    }
    await waitForDiagnostics(
      doc.uri,
      () => ours(doc.uri, 'exceeds-gpu-memory').length === 1,
      'the diagnostic back on 24 GB',
    );
  });

  test('the panel command opens the VRAM panel', async () => {
    await open('run.vram.yaml');
    await vscode.commands.executeCommand('vramLens.openPanel');
    const labels = (): string[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs).map((t) => t.label);
    const end = Date.now() + 15_000;
    while (!labels().includes('VRAM Lens') && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.ok(labels().includes('VRAM Lens'), `tabs: ${labels().join(', ')}`);
  });
});

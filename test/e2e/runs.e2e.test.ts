// One run in three files (test/e2e/fixtures/workspace/fsdp-run): launch.sh runs `accelerate launch --config_file
// fsdp.yaml train.py`. Each of the three shows the run's FSDP estimate on 4 GPUs, and an edit to fsdp.yaml reaches the
// estimate of the other two within a second.
import * as assert from 'assert';
import * as vscode from 'vscode';

async function open(name: string): Promise<vscode.TextDocument> {
  const [file] = await vscode.workspace.findFiles(name, '**/node_modules/**', 1);
  assert.ok(file, `${name} in the workspace`);
  const doc = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

async function hoverText(doc: vscode.TextDocument, needle: string, delta = 2): Promise<string> {
  const offset = doc.getText().indexOf(needle);
  assert.ok(offset >= 0, `${needle} in ${doc.fileName}`);
  const hovers = await vscode.commands.executeCommand<vscode.Hover[]>(
    'vscode.executeHoverProvider',
    doc.uri,
    doc.positionAt(offset + delta),
  );
  return hovers
    .flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : '')))
    .join('\n');
}

/**
 * The per-GPU figure of a hover's first line (the verdict: "fits: 11.7 GiB of 23.6 GiB on RTX-4090" or "29.6 GiB >
 * 23.6 GiB on ..."), the part every file of one run shares whatever the key (the block below it follows the key).
 */
function total(hover: string): string {
  return /^\*\*(?:fits: )?([\d.]+ [KMGT]?i?B)/m.exec(hover)?.[1] ?? '';
}

/** Polls `f` until `cond` holds or `timeoutMs` passes; the last value either way. */
async function until<T>(
  f: () => Promise<T>,
  cond: (v: T) => boolean,
  timeoutMs: number,
): Promise<{ value: T; ok: boolean }> {
  const end = Date.now() + timeoutMs;
  let value = await f();
  while (!cond(value) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    value = await f();
  }
  return { value, ok: cond(value) };
}

const FILES: ReadonlyArray<[string, string]> = [
  ['fsdp-run/launch.sh', '--per_device_train_batch_size'],
  ['fsdp-run/fsdp.yaml', 'fsdp_sharding_strategy'],
  ['fsdp-run/train.py', 'gradient_checkpointing'],
];

suite('VRAM Lens runs: launcher, Accelerate config and training script (real extension host)', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension('vram-lens.vram-lens');
    assert.ok(ext);
    await open('fsdp-run/launch.sh');
    const end = Date.now() + 20_000;
    while (!ext.isActive && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.ok(ext.isActive);
  });

  test('launch.sh, fsdp.yaml and train.py each show the same FSDP estimate', async () => {
    // fsdp.yaml's sharding key drives the FSDP terms, which its hover lists; the workspace index builds in the
    // background, so wait for it.
    const yaml = await open('fsdp-run/fsdp.yaml');
    const y = await until(
      () => hoverText(yaml, 'fsdp_sharding_strategy'),
      (h) => /FSDP/.test(h) && total(h) !== '',
      20_000,
    );
    assert.ok(y.ok, `fsdp.yaml: the FSDP estimate; hover: ${y.value}`);
    const run = total(y.value);
    for (const [name, needle] of [FILES[0], FILES[2]]) {
      const doc = await open(name);
      const r = await until(
        () => hoverText(doc, needle),
        (h) => total(h) === run,
        20_000,
      );
      assert.ok(r.ok, `${name}: the run's estimate (${run} per GPU); hover: ${r.value}`);
    }
    assert.match(await hoverText(yaml, 'num_processes'), /GPUs 4 -> 8/);
  });

  test('an edit to fsdp.yaml reaches the estimate of launch.sh and train.py within a second', async () => {
    // One editor at a time: showTextDocument calls in parallel can fail to open one of them.
    const docs: vscode.TextDocument[] = [];
    for (const [name] of FILES) docs.push(await open(name));
    const before = await Promise.all(docs.map(async (d, k) => total(await hoverText(d, FILES[k][1]))));
    const yaml = docs[1];
    const editor = await vscode.window.showTextDocument(yaml);
    const at = yaml.getText().indexOf('num_processes: 4');
    assert.ok(at >= 0);
    const edited = Date.now();
    await editor.edit((b) =>
      b.replace(
        new vscode.Range(yaml.positionAt(at), yaml.positionAt(at + 'num_processes: 4'.length)),
        'num_processes: 2',
      ),
    );
    try {
      for (const k of [0, 2]) {
        const left = Math.max(0, 1000 - (Date.now() - edited));
        const r = await until(
          async () => total(await hoverText(docs[k], FILES[k][1])),
          (b) => b.length > 0 && b !== before[k],
          left,
        );
        assert.ok(r.ok, `${FILES[k][0]}: the estimate changed within a second of the edit (${Date.now() - edited} ms)`);
      }
      const after = total(await hoverText(docs[1], FILES[1][1]));
      assert.notEqual(after, before[1]);
      assert.equal(total(await hoverText(docs[0], FILES[0][1])), after);
      assert.equal(total(await hoverText(docs[2], FILES[2][1])), after);
    } finally {
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  });
});

/** The diagnostic that the run does not fit (its code is an object with the link to its documentation). */
const exceeds = (d: vscode.Diagnostic): boolean =>
  typeof d.code === 'object' && d.code !== null && String(d.code.value) === 'exceeds-gpu-memory';

suite('VRAM Lens runs: a YAML the training script loads (real extension host)', () => {
  // data-run/train.py loads configs/sft.yaml with yaml.safe_load and reads its micro-batch: the YAML shows the run.
  test('sft.yaml shows the run of train.py: the same estimate, and the diagnostic at its micro-batch key', async () => {
    const yaml = await open('data-run/configs/sft.yaml');
    const y = await until(
      () => hoverText(yaml, 'micro_batch_size'),
      (h) => total(h) !== '',
      20_000,
    );
    assert.ok(y.ok, `sft.yaml: the run's estimate; hover: ${y.value}`);
    const script = await open('data-run/train.py');
    const s = await until(
      () => hoverText(script, 'per_device_train_batch_size'),
      (h) => total(h) === total(y.value),
      20_000,
    );
    assert.ok(s.ok, `train.py: the same estimate (${total(y.value)} per GPU); hover: ${s.value}`);
    // Qwen2.5-1.5B in bf16 with 16 x 2,048 tokens per micro-batch does not fit an RTX 4090 (the workspace's GPU).
    const line = yaml
      .getText()
      .split('\n')
      .findIndex((l) => /micro_batch_size/.test(l));
    const d = await until(
      async () => vscode.languages.getDiagnostics(yaml.uri),
      (ds) => ds.some(exceeds),
      20_000,
    );
    const over = d.value.find(exceeds);
    assert.equal(over?.range.start.line, line, JSON.stringify(d.value.map((x) => [x.code, x.range.start.line])));
  });
});

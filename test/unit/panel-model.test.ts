// The panel model's advice (src/features/panel-model.ts): which items the run's files can take, why the others
// cannot (a kind the panel words, and the planner's reasons with file names only), and the messages that apply
// them (src/protocol/messages.ts), validated both ways.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeFileReader } from '../../src/node/files';
import { offlineModelResolver } from '../../src/node/models';
import { analyzeDocument } from '../../src/features/analysis';
import { MAX_APPLICABLE, MAX_BLOCKED, blockedKindOf, buildPanelModel } from '../../src/features/panel-model';
import {
  ApplyChangesParams,
  ApplyResult,
  FromWebview,
  PanelModel,
  ToWebview,
  type AdviceView,
} from '../../src/protocol/messages';

const repo = path.resolve(__dirname, '..', '..', '..');
const env = { HOME: '/nonexistent', HF_HUB_CACHE: '/nonexistent', XDG_CACHE_HOME: '/nonexistent' };

function adviceOf(rel: string): { advice: AdviceView[]; model: PanelModel } {
  const file = path.join(repo, rel);
  const text = fs.readFileSync(file, 'utf8');
  const a = analyzeDocument(
    { file, text },
    { gpu: 'RTX-4090', headroomPercent: 5 },
    {
      reader: nodeFileReader(path.dirname(file)),
      resolver: offlineModelResolver({ cwd: path.dirname(file), env }),
    },
  );
  const { model } = buildPanelModel(a, {});
  assert.ok(model, rel);
  assert.ok(PanelModel.safeParse(model).success, `${rel}: the model matches its schema`);
  return { advice: model.advice, model };
}

describe('panel model: advice the files can take', () => {
  it('marks each item applicable or blocked with a reason, never both', () => {
    for (const rel of [
      'test/e2e/fixtures/workspace/train.py',
      'test/e2e/fixtures/workspace/train.sh',
      'test/e2e/fixtures/workspace/axolotl.yml',
      'examples/llama2-7b-lora.vram.yaml',
    ]) {
      const { advice } = adviceOf(rel);
      assert.ok(advice.length > 0, rel);
      for (const a of advice) {
        assert.equal(a.applicable, a.blocked === null, `${rel} ${a.id}`);
        if (a.blocked && a.blocked.kind !== 'nothing') assert.ok(a.blocked.detail.length > 0, `${rel} ${a.id}`);
      }
    }
  });

  it('names files, never their directories, in the reasons', () => {
    const { advice } = adviceOf('test/fixtures/same-run/ds-python/train.py');
    const blocked = advice.filter((a) => a.blocked);
    assert.ok(blocked.length > 0);
    for (const a of blocked) {
      assert.doesNotMatch(a.blocked!.detail, new RegExp(repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.doesNotMatch(a.blocked!.detail, /\/test\/fixtures\//);
    }
    assert.ok(
      blocked.some((a) =>
        /^train\.py: a TrainingArguments script has no setting for gpus_per_node/.test(a.blocked!.detail),
      ),
      JSON.stringify(blocked.map((a) => a.blocked)),
    );
    assert.ok(blocked.some((a) => a.blocked!.kind === 'format'));
  });

  it('keeps applicable items further down the ranking, in rank order, within the caps', () => {
    // In train.sh the applicable items are ranked 1st, 5th, 14th and 18th: all of them are in the model.
    const { advice } = adviceOf('test/e2e/fixtures/workspace/train.sh');
    const applicable = advice.filter((a) => a.applicable);
    assert.ok(applicable.length >= 3, JSON.stringify(advice.map((a) => [a.id, a.applicable])));
    assert.ok(applicable.length <= MAX_APPLICABLE && advice.length - applicable.length <= MAX_BLOCKED);
    const { advice: all } = adviceOf('examples/llama2-7b-lora.vram.yaml');
    assert.equal(all.filter((a) => a.applicable).length, MAX_APPLICABLE);
    const saved = all.map((a) => a.id);
    assert.deepEqual(saved, [...new Set(saved)]);
  });

  it('sorts planner reasons into the kinds the panel words', () => {
    const cases: Array<[string, string]> = [
      ['/w/train.py: a TrainingArguments script has no setting for zero_stage', 'format'],
      ['/w/axolotl.yml: Axolotl has no setting for gpus_per_node', 'format'],
      ['/w/train.sh: the launch command has no --zero_stage flag; ZeRO is set in the DeepSpeed config', 'elsewhere'],
      [
        '/w/config.yml: deepspeed names ds_config.json, not one of the DeepSpeed configs Axolotl ships; change that file',
        'elsewhere',
      ],
      [
        '/w/train.py: the file builds no LoraConfig; switching to LoRA needs new code (get_peft_model / peft_config)',
        'code',
      ],
      ['/w/ds.json: NVMe offload needs an nvme_path; write it by hand', 'by-hand'],
      [
        '/w/run.yaml: torchao is a package version: upgrade it in the environment and its requirements pin',
        'environment',
      ],
      ['/w/ds.json: the JSON has syntax errors (or hjson-only syntax); fix them first', 'layout'],
      ['/w/x.yaml: the key shares its line with other content; edit it by hand', 'layout'],
      ['something no rule knows', 'other'],
    ];
    for (const [reason, kind] of cases) assert.equal(blockedKindOf(reason), kind, reason);
  });
});

describe('panel protocol: apply, write back, reveal', () => {
  it('takes an applyChanges with setup keys and a request id, and refuses paths or bad keys', () => {
    assert.ok(
      FromWebview.safeParse({
        type: 'applyChanges',
        requestId: 3,
        changes: [
          { key: 'zero_stage', value: 3 },
          { key: 'gpus_per_node', value: 2 },
        ],
      }).success,
    );
    assert.ok(!FromWebview.safeParse({ type: 'applyChanges', requestId: 3, changes: [] }).success);
    assert.ok(
      !FromWebview.safeParse({ type: 'applyChanges', requestId: 3, changes: [{ key: '../../etc/passwd', value: 1 }] })
        .success,
    );
    assert.ok(
      !FromWebview.safeParse({ type: 'applyAdvice', adviceId: 'zero3' }).success,
      'applyAdvice carries a request id',
    );
    assert.ok(FromWebview.safeParse({ type: 'applyAdvice', adviceId: 'zero3', requestId: 0 }).success);
  });

  it("reveals files by the host's ids only", () => {
    assert.ok(FromWebview.safeParse({ type: 'revealFile', fileId: 'f12' }).success);
    for (const fileId of ['/etc/passwd', 'file:///w/ds.json', 'f1/../x', ''])
      assert.ok(!FromWebview.safeParse({ type: 'revealFile', fileId }).success, fileId);
  });

  it('answers an apply with the files it changed', () => {
    assert.ok(
      ToWebview.safeParse({
        type: 'adviceApplied',
        requestId: 1,
        applied: true,
        files: [{ id: 'f0', name: 'ds_config.json' }],
      }).success,
    );
    assert.ok(
      ToWebview.safeParse({ type: 'adviceApplied', requestId: 1, applied: false, message: 'changed since', files: [] })
        .success,
    );
    assert.ok(
      !ToWebview.safeParse({
        type: 'adviceApplied',
        requestId: 1,
        applied: true,
        files: [{ id: '/w/ds_config.json', name: 'ds_config.json' }],
      }).success,
    );
    assert.ok(
      ApplyChangesParams.safeParse({ uri: 'file:///w/ds_config.json', changes: [{ key: 'zero_stage', value: 3 }] })
        .success,
    );
    assert.ok(ApplyResult.safeParse({ applied: true }).success);
    assert.ok(!ApplyResult.safeParse({ ok: true }).success);
  });
});

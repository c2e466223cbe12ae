// OpenRLHF's Actor: the head's logits cast to fp32 and the log-probabilities by flash-attn's cross_entropy_loss
// (setup.actor_logps; terms/preference-logps.ts openrlhfActorLogps), and SFT's loop keeping `output` until the next
// forward returns. Hand figures from OpenRLHF/OpenRLHF@3c3be62 openrlhf/models/actor.py forward, models/utils.py
// log_probs_from_logits and trainer/sft_trainer.py fit; flash-attn's ops/triton/cross_entropy.py backward
// (`torch.empty_like(logits)` unless inplace_backward).
import * as assert from 'node:assert/strict';
import { estimate } from '../../src/core';
import { component, phase, resolveText, runFiles } from './helpers';

const LAUNCH =
  'deepspeed --module openrlhf.cli.train_sft --pretrain Qwen/Qwen2.5-0.5B --micro_train_batch_size 2 ' +
  '--max_len 1024 --zero_stage 2 --bf16 --flash_attn --gradient_checkpointing\n';
// Qwen2.5-0.5B: vocabulary 151,936, hidden 896.
const V = 151936;
const H = 896;

function phases(text: string, files?: Record<string, string>) {
  const r = files ? runFiles({ ...files, 'run.sh': text }, 'run.sh') : resolveText('run.sh', text);
  const e = estimate(r.setup!, {});
  assert.ok(e.ok);
  return { setup: r.setup!, e: e.estimate };
}

const label = (p: ReturnType<typeof phase>, start: string): number =>
  p.components.filter((c) => c.label.startsWith(start)).reduce((s, c) => s + c.bytes, 0);

describe("OpenRLHF's Actor log-probabilities", () => {
  it('SFT: fp32 logits held by the loop, 2 B head output at the cast, 4 + 2 B of gradients', () => {
    const { setup, e } = phases(LAUNCH);
    assert.equal(setup.actor_logps, 'openrlhf');
    assert.equal(setup.loop_keeps_outputs, true);
    const TV = 2 * 1024 * V; // 2 sequences x max_len 1024
    const fwd = phase(e, 'forward');
    // The last step's fp32 logits (4·T·V) while this forward casts its 2 B head output to fp32 (6·T·V).
    assert.equal(label(fwd, "The step's logits"), 4 * TV);
    assert.equal(label(fwd, 'Cross-entropy forward temporaries'), 6 * TV);
    const bwd = phase(e, 'backward');
    assert.equal(label(bwd, "The step's logits"), 4 * TV);
    // flash-attn's new fp32 gradient of the logits, and the cast's 2 B gradient beside it.
    assert.equal(label(bwd, 'Loss backward'), 6 * TV);
    // Saved: the loss and logsumexp (8·T) beside the final norm's and head's inputs (8·T·h); no log-softmax.
    assert.ok(label(bwd, 'Logits and cross-entropy (saved)') < 8 * 2048 * H + 16 * 2048);
    assert.equal(label(phase(e, 'optimizer'), "The step's logits"), 4 * TV);
  });

  it('SFT pinned before 0.7: GPTLMLoss over the fp32 logits, a shifted copy and a kept log-softmax', () => {
    const { setup, e } = phases(LAUNCH, { 'requirements.txt': 'openrlhf==0.6.1\n' });
    assert.equal(setup.openrlhf_version, '0.6.1');
    const TV = 2 * 1024 * V;
    const fwd = phase(e, 'forward');
    // OpenRLHF@v0.6.1 models/loss.py GPTLMLoss: the fp32 logits 4·T·V and their shifted contiguous copy 4·T·V at the
    // call, log_softmax's output 4·T·V kept; the last step's logits beside them.
    assert.equal(label(fwd, 'Cross-entropy forward temporaries'), 8 * TV);
    assert.equal(label(fwd, "The step's logits"), 4 * TV);
    assert.ok(label(fwd, 'Logits and cross-entropy (saved)') >= 4 * TV);
    assert.equal(label(phase(e, 'backward'), 'Loss backward'), 8 * TV);
    assert.match(fwd.components.find((c) => c.label.startsWith('Logits'))!.formula, /OpenRLHF < 0\.7 GPTLMLoss/);
  });

  it("a project's own copy of OpenRLHF is its version.txt's release: before 0.5.6 the 16-bit logits, no cast", () => {
    // ZetangForward/MyRLHF vendors OpenRLHF 0.4.4 (setup.py `name="openrlhf"` reads version.txt): its Actor returns the
    // head's 16-bit logits and GPTLMLoss copies their shifted slice and takes log_softmax in bf16 (no autocast under
    // DeepSpeed's bf16 engine).
    const copy = (version: string) => ({
      'setup.py':
        'from setuptools import setup\ndef _fetch_version():\n    with open("version.txt", "r") as f:\n' +
        '        return f.read().strip()\nsetup(name="openrlhf", version=_fetch_version())\n',
      'version.txt': `${version}\n`,
    });
    const TV = 2 * 1024 * V;
    const old = phases(LAUNCH, copy('0.4.4'));
    assert.equal(old.setup.openrlhf_version, '0.4.4');
    const fwd = phase(old.e, 'forward');
    // The logits 2·T·V and their shifted copy 2·T·V at the call; log_softmax's 2·T·V output kept.
    assert.equal(label(fwd, 'Cross-entropy forward temporaries'), 4 * TV);
    assert.equal(label(fwd, "The step's logits"), 2 * TV);
    assert.match(fwd.components.find((c) => c.label.startsWith('Logits'))!.formula, /OpenRLHF < 0\.5\.6 GPTLMLoss/);
    // 0.6.1.post1 (Rubric-RM's copy): the fp32 logits of GPTLMLoss.
    assert.equal(phases(LAUNCH, copy('0.6.1.post1')).setup.openrlhf_version, '0.6.1');
    // Before 0.8.10 flash attention only with --flash_attn (maiush/OpenCharacterTraining's fork passes none): eager.
    const bare = LAUNCH.replace(' --flash_attn', '');
    assert.equal(old.setup.attention, 'flash');
    assert.equal(phases(bare, copy('0.4.4')).setup.attention, 'eager');
    assert.equal(phases(bare, copy('0.9.3')).setup.attention, 'flash');
  });

  it('DPO: the policy keeps its fp32 logits, the reference casts its own beside them', () => {
    const { setup, e } = phases(LAUNCH.replace('train_sft', 'train_dpo'));
    assert.equal(setup.actor_logps, 'openrlhf');
    assert.ok(!setup.loop_keeps_outputs);
    // concatenated_forward returns log-probabilities only: no TRL metrics over kept logits.
    assert.equal(setup.preference?.logits_kept, false);
    const TV = 2 * 2 * 1024 * V; // 2 pairs: chosen and rejected
    const fwd = phase(e, 'forward');
    const saved = label(fwd, 'Logits and cross-entropy (saved)');
    assert.ok(saved >= 4 * TV && saved < 4 * TV + 8 * 4096 * H + 16 * 4096);
    assert.equal(label(fwd, 'Reference forward'), 6 * TV);
    assert.equal(label(phase(e, 'backward'), 'Loss backward'), 6 * TV);
    assert.equal(component(phase(e, 'optimizer'), 'logits-loss'), 0);
  });
});

// Term: a sharded FSDP1 checkpoint that keeps its shards on the GPU (src/core/terms/checkpoint-save.ts). The clones'
// bytes are worked by hand from Llama-2-7B's parameter counts (config.json: h 4096, I 11008, 32 layers, V 32000):
// 6,738,415,616 parameters, 202,383,360 per decoder layer, 131,072,000 each in the embedding and the head. The PEFT
// recipe's published pair (peft docs/source/accelerate/fsdp.md, March 2024: 19.6 GB per GPU with CPU offload, 35.6 GB
// without) is read in tools/truth/FINDINGS.md §17.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TrainingSetupSchema, type TrainingSetupInput } from '../../../src/core/setup';
import { run, setupFor } from '../helpers';
import { FSDP1_SHARDED_SAVE } from './helpers';

const base = FSDP1_SHARDED_SAVE;
const llama7b = (extra: Partial<TrainingSetupInput> = {}): ReturnType<typeof run> =>
  run(setupFor('meta-llama/Llama-2-7b-hf', { ...base, ...extra }));
const savePhase = (e: ReturnType<typeof run>) => e.perGpu.phases.find((p) => p.phase === 'checkpoint-save');
const bytesOf = (e: ReturnType<typeof run>, label: RegExp): number | undefined =>
  savePhase(e)?.components.find((c) => label.test(c.label))?.bytes;

/** tools/truth/state_dict_save.py: FSDP1's SHARDED_STATE_DICT built on the CPU (fake process group), from zero. */
interface StateDictPoint {
  readonly world: number;
  readonly method: 'lora' | 'full';
  readonly peakBytes: number;
  readonly heldAtEndBytes: number;
}
const measured = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'state-dict-save.json'), 'utf8'),
) as { architecture: Record<string, unknown>; points: StateDictPoint[] };

describe('checkpoint-save: against torch FSDP1 building the state dict (CPU truth)', () => {
  for (const pt of measured.points) {
    it(`${pt.method}, world ${pt.world}: the clones and the high point within 0.1 %`, () => {
      const e = run(
        TrainingSetupSchema.parse({
          model: 'tiny-llama',
          architecture: measured.architecture,
          ...base,
          method: pt.method,
          ...(pt.method === 'full' ? { lora: undefined } : {}),
          gpus_per_node: pt.world,
        }),
      );
      const clones = bytesOf(e, /^Sharded checkpoint/)!;
      const high = savePhase(e)!
        .components.filter((c) => c.id === 'checkpoint-save' || /unsharded for the state dict/.test(c.label))
        .reduce((s, c) => s + c.bytes, 0);
      assert.ok(Math.abs(clones / pt.heldAtEndBytes - 1) < 0.001, `${clones} vs ${pt.heldAtEndBytes}`);
      assert.ok(Math.abs(high / pt.peakBytes - 1) < 0.001, `${high} vs ${pt.peakBytes}`);
    });
  }
});

describe('checkpoint-save: SHARDED_STATE_DICT with Accelerate < 0.31', () => {
  it("clones this rank's shard of every parameter: Llama-2-7B LoRA over two GPUs", () => {
    // (6,738,415,616 model + 32 layers x 2 modules x 16 x (4,096 + 4,096) = 8,388,608 adapter) params x 2 B / 2.
    const e = llama7b();
    assert.equal(bytesOf(e, /^Sharded checkpoint/), 6_746_804_224);
    // The root unit (embedding + head, 262,144,000 x 2 B) for the whole state dict; one decoder layer (202,383,360 x
    // 2 B) at a time, resharded before the root's own clones (524,288,000 / 2) are made: 404,766,720 - 262,144,000.
    assert.equal(bytesOf(e, /root unit unsharded/), 524_288_000);
    assert.equal(bytesOf(e, /layer unit unsharded/), 142_622_720);
    // Beside the model states: the 16-bit weights' shard (6,738,415,616 B), so the save is the run's peak at this
    // batch, and more than the whole sharded model again.
    assert.equal(e.perGpu.phase, 'checkpoint-save');
    const save = savePhase(e)!;
    assert.ok(save.allocatedBytes > 6_738_415_616 + 6_746_804_224 + 524_288_000 + 142_622_720 - 1);
  });

  it('clones the offloaded shards too: CPU offload keeps only the clones and the unsharded units on the GPU', () => {
    const e = llama7b({ offload_params: 'cpu', offload_optimizer: 'cpu' });
    assert.equal(bytesOf(e, /^Sharded checkpoint/), 6_746_804_224);
    assert.equal(savePhase(e)!.components.find((c) => c.id === 'weights')?.bytes ?? 0, 0);
  });

  it('counts a 4-bit layer as its packed codes, which is what the flat parameter holds', () => {
    // NF4 without nested quantization: the block's linear weights are stored at 0.5 B, its norms stay 16-bit.
    const q = llama7b({ method: 'qlora', quantization: { bits: 4, type: 'nf4', double_quant: false } });
    const l = llama7b();
    const clonesQ = bytesOf(q, /^Sharded checkpoint/)!;
    const clones16 = bytesOf(l, /^Sharded checkpoint/)!;
    // 32 x (4 x 4,096^2 + 3 x 4,096 x 11,008) = 6,476,005,376 linear weights go from 2 B to 0.5 B: 1.5 B x that / 2.
    assert.equal(clones16 - clonesQ, (6_476_005_376 * 1.5) / 2);
  });

  it("the advice search's lean estimate gives the same peak, phase and reserved bytes", () => {
    for (const extra of [{}, { offload_params: 'cpu' as const, offload_optimizer: 'cpu' as const }]) {
      const setup = setupFor('meta-llama/Llama-2-7b-hf', { ...base, ...extra });
      const full = run(setup);
      const lean = run(setup, { lean: true });
      assert.equal(lean.perGpu.phase, full.perGpu.phase);
      assert.equal(lean.perGpu.peakBytes, full.perGpu.peakBytes);
      assert.equal(lean.perGpu.reservedBytes, full.perGpu.reservedBytes);
    }
  });

  it('is absent where the shards leave the GPU as they are made, or no sharded checkpoint is written', () => {
    for (const extra of [
      { accelerate_version: '0.31' },
      { accelerate_version: undefined },
      { fsdp_state_dict_type: 'full' as const },
      { saves_checkpoints: false },
      { fsdp_version: 2 as const },
      { fsdp: 'no_shard' as const },
    ]) {
      const e = llama7b(extra);
      assert.equal(savePhase(e), undefined, JSON.stringify(extra));
    }
  });

  it("says what it assumed: the Trainer's saving and a current Accelerate, when the files do not say", () => {
    const e = llama7b({ accelerate_version: undefined });
    const keys = e.assumptions.map((a) => a.key);
    assert.ok(keys.includes('accelerate_version') && keys.includes('saves_checkpoints'));
    assert.ok(!llama7b().assumptions.some((a) => a.key === 'accelerate_version'));
  });
});

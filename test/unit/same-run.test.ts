// One training run written in each format gives the same per-GPU estimate (test/fixtures/same-run/README.md).
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import { run } from '../../src/cli/main';

const root = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'same-run');
const env = {
  HOME: os.tmpdir(),
  HF_HUB_CACHE: path.join(os.tmpdir(), 'vram-lens-none'),
  XDG_CACHE_HOME: path.join(os.tmpdir(), 'vram-lens-none'),
};

async function perGpu(
  args: string[],
): Promise<{ peakBytes: number; reservedBytes: number; deviceBytes: number; phase: string; setup: string }> {
  let out = '';
  let err = '';
  const code = await run(
    [
      'estimate',
      ...args.map((a) => (a.startsWith('--') || /^\d+$/.test(a) ? a : path.join(root, a))),
      '--json',
      '--gpu',
      'A100-80GB',
    ],
    { out: (s) => (out += s), err: (s) => (err += s), cwd: root, env },
  );
  assert.equal(code, 0, `${args.join(' ')}: ${err}`);
  const j = JSON.parse(out);
  return {
    peakBytes: j.perGpu.peakBytes,
    reservedBytes: j.perGpu.reservedBytes,
    deviceBytes: j.perGpu.deviceBytes,
    phase: j.perGpu.phase,
    setup: j.perGpu.components.map((c: { id: string; bytes: number }) => `${c.id}=${c.bytes}`).join(' '),
  };
}

describe('the same run in every format', () => {
  const variants: Array<[string, string[]]> = [
    ['DeepSpeed JSON + TRL SFTConfig (.py), --gpus 8', ['ds-python/train.py', '--gpus', '8']],
    ['deepspeed launcher + DeepSpeed JSON', ['shell-ds/launch.sh']],
    ['Accelerate config + SFTConfig script', ['accelerate/accelerate.yaml', 'accelerate/train.py']],
    ['Axolotl YAML + DeepSpeed JSON, --gpus 8', ['axolotl/config.yml', '--gpus', '8']],
    ['LLaMA-Factory YAML + DeepSpeed JSON, --gpus 8', ['llamafactory/train.yaml', '--gpus', '8']],
  ];
  for (const [name, args] of variants) {
    it(`${name} = the scenario`, async () => {
      const want = await perGpu(['scenario/run.vram.yaml']);
      const got = await perGpu(args);
      assert.deepEqual(got, want);
    });
  }
  it('torchtune YAML + tune run = its scenario (torchtune semantics: bf16 adapters, FSDP, chunked loss)', async () => {
    const want = await perGpu(['scenario/run-torchtune.vram.yaml']);
    const got = await perGpu(['torchtune/run.sh', 'torchtune/8B_lora.yaml']);
    assert.deepEqual(got, want);
  });
  it('LitGPT config (finetune_lora, 8 devices) = its scenario (bf16-true, FSDP with every block checkpointed, chunked head)', async () => {
    const want = await perGpu(['scenario/run-litgpt.vram.yaml']);
    const got = await perGpu(['litgpt/lora.yaml']);
    assert.deepEqual(got, want);
  });
});

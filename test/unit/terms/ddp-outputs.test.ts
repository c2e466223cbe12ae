// Term: the returned logits and DDP's clone of them under find_unused_parameters (src/core/terms/ddp-outputs.ts).
// CPU truth of the HF Trainer over 2 ranks as Accelerate prepares it (test/fixtures/truth/accelerate.json: a Llama of
// hidden 256 and vocabulary 4,096, 2 x 512 tokens; tools/truth/FINDINGS.md §56): the forward ends at _DDPSink's clone
// of the fp32 logits Accelerate's convert_outputs_to_fp32 made, 2 x 1,024 x 4,096 x 4 B = 33,554,432 B beside what the
// loss saved.
import * as assert from 'node:assert/strict';
import { component, near, phase, run } from '../helpers';
import { truthSetup } from './helpers';
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The measured forward peak of a truth point of the accelerate suite. */
function forwardPeak(id: string): number {
  const file = path.resolve(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'truth', 'accelerate.json');
  const points = (
    JSON.parse(fs.readFileSync(file, 'utf8')) as {
      points: Array<{ id: string; phases: { forward: { peakBytes: number } } }>;
    }
  ).points;
  return points.find((p) => p.id === id)!.phases.forward.peakBytes;
}

describe("ddp-outputs: DDP's copy of the outputs under find_unused_parameters", () => {
  const id = 'accelerate/llama-ddp-w2-lora-bf16-ckpt';

  it('the forward ends with the fp32 logits and their clone: 33,554,432 B, the trainer within 1 %', () => {
    const e = run(truthSetup(id));
    const fwd = phase(e, 'forward');
    assert.equal(fwd.components.find((c) => c.label.startsWith('Returned logits'))?.bytes, 2 * 1024 * 4096 * 4);
    near(fwd.allocatedBytes, forwardPeak(id), 0.01, 'forward peak against the trainer');
  });
  it('without find_unused_parameters the same forward is 14 % below what the trainer measured', () => {
    const e = run(truthSetup(id, { ddp_find_unused_parameters: false }));
    assert.ok(phase(e, 'forward').allocatedBytes / forwardPeak(id) - 1 < -0.13);
    assert.equal(component(phase(e, 'forward'), 'logits-loss') > 0, true);
  });
});

// A launch option whose value is a slot the command leaves to fill in (yangjianxin1/Firefly's README:
// `deepspeed --num_gpus={num_gpus} train.py --train_args_file ...`): said as an unfilled slot (code `placeholder`), not as a wrong value.
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';

describe('shell: a slot left to fill in', () => {
  it('{num_gpus} and [GPUS] are unfilled slots, warned at the value; a wrong word stays an invalid value', () => {
    for (const [line, slot] of [
      ['deepspeed --num_gpus={num_gpus} train.py --model_name_or_path gpt2\n', '{num_gpus}'],
      ['torchrun --nproc_per_node [GPUS] train.py --model_name_or_path gpt2\n', '[GPUS]'],
    ]) {
      const r = analyzeShell(line);
      const p = r.problems.find((x) => x.code === 'placeholder');
      assert.equal(p && line.slice(p.span.start, p.span.end), slot, line);
      assert.ok(!r.problems.some((x) => x.code === 'invalid-value'), line);
    }
    const wrong = analyzeShell('torchrun --nproc_per_node eight train.py --model_name_or_path gpt2\n');
    assert.ok(wrong.problems.some((x) => x.code === 'invalid-value'));
  });
});

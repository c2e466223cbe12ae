// A commented-out option inside a `\` continuation (shell/lexer.ts continuedComment): bash ends the command at the
// comment line, and the lines after it run as a command of their own; the launcher means one command. The shape of
// JJH12234/ScaleBench's Code/finetune/Qwen2.5-VL.sh (`    #--model_name_or_path Qwen/Qwen2.5-VL-32B-Instruct \`
// between `--model_name_or_path Qwen/Qwen2.5-VL-7B-Instruct \` and `--per_device_train_batch_size 4 \`).
import * as assert from 'node:assert/strict';
import { analyzeShell } from '../../../src/analyzers/shell';

const launcher = [
  'torchrun --nproc_per_node 2 train.py \\',
  '    --model_name_or_path Qwen/Qwen2.5-7B \\',
  '    #--model_name_or_path Qwen/Qwen2.5-32B \\',
  '    #--model_name_or_path Qwen/Qwen2.5-72B \\',
  '    --per_device_train_batch_size 4 \\',
  '    --bf16 True',
  '',
].join('\n');

describe('shell: a commented-out option inside a continued command', () => {
  it('reads the one command the continuations mean, and warns at each comment line', () => {
    const r = analyzeShell(launcher);
    const batch = r.facts.find((f) => f.key === 'microBatchSize');
    assert.equal(batch?.value, 4);
    assert.equal(r.facts.find((f) => f.key === 'model')?.value, 'Qwen/Qwen2.5-7B');
    const warned = r.problems.filter((p) => /bash ends the command at this comment line/.test(p.message));
    assert.equal(warned.length, 2);
    assert.equal(launcher.slice(warned[0].span.start, warned[0].span.start + 34), '#--model_name_or_path Qwen/Qwen2.5');
  });

  it('a comment that ends the command (no `\\` of its own, or nothing after it) is as bash reads it, unsaid', () => {
    const ended = 'python train.py \\\n    --model_name_or_path gpt2 \\\n    # the end\n';
    assert.equal(analyzeShell(ended).problems.filter((p) => /comment line/.test(p.message)).length, 0);
    const last = 'python train.py \\\n    --model_name_or_path gpt2 \\\n    #--bf16 True \\\n\necho done\n';
    assert.equal(analyzeShell(last).problems.filter((p) => /comment line/.test(p.message)).length, 0);
    // Several commented-out options last (xiusic/Rubric-RM run_baselines/dpo.sh: `#    --use_wandb ... \`, then
    // `#    --wandb_project ... \`): nothing after them runs on its own.
    const trailing = last.replace('#--bf16 True \\\n', '#--bf16 True \\\n    #--use_wandb x \\\n');
    assert.equal(analyzeShell(trailing).problems.filter((p) => /comment line/.test(p.message)).length, 0);
  });

  it('a command commented out whole, each line ending in `\\`, is no command: nothing read from it, nothing said', () => {
    // PetroGPT/PetroGPT scripts/train_sft.sh: the LoRA command, then `#petrogpt-train --stage sft \` and its
    // commented-out options for a full fine-tune (a comment's own `\` continues nothing).
    const text =
      'python train.py \\\n  --per_device_train_batch_size 4 \\\n  --bf16 > log 2>&1\n\n' +
      '#python train.py \\\n#  --per_device_train_batch_size 8 \\\n#  --bf16\n';
    const r = analyzeShell(text);
    assert.equal(r.problems.filter((p) => /comment line/.test(p.message)).length, 0);
    assert.deepEqual(
      r.facts.filter((f) => f.key === 'microBatchSize').map((f) => f.value),
      [4],
    );
  });
});

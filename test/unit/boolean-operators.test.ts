// `and` / `or` / `not` grouped as Python groups them (src/analyzers/hf-python/boolean-operators.ts). The groupings
// below are Python's: `not` binds tighter than `and`, `and` tighter than `or`, comparisons tighter than `not`, and
// `and` / `or` group from the left (https://docs.python.org/3/reference/expressions.html#operator-precedence).
import * as assert from 'node:assert/strict';
import type { SyntaxNode } from '@lezer/common';
import { parsePython } from '../../src/analyzers/python-parse';
import { booleanTree, type BooleanTree } from '../../src/analyzers/hf-python/boolean-operators';
import { runPipeline } from '../../src/analyzers/pipeline';
import { inMemory } from './helpers';

/** The tree of `x = <expr>`'s right side, written with every group in parentheses. */
function grouped(expr: string): string {
  const text = `x = ${expr}\n`;
  const assign = parsePython(text).tree.topNode.firstChild!;
  const value = assign.lastChild as SyntaxNode;
  const tree = booleanTree(value);
  const show = (t: BooleanTree): string => {
    if (t.op === 'leaf') return text.slice(t.node.from, t.node.to);
    if (t.op === 'not') return `(not ${show(t.operand)})`;
    return `(${show(t.left)} ${t.op} ${show(t.right)})`;
  };
  return tree ? show(tree) : 'none';
}

describe('boolean operators as Python binds them', () => {
  it('binds `not` to the operand that follows it, not to the rest of the chain', () => {
    assert.equal(grouped('not b and c'), '((not b) and c)');
    assert.equal(grouped('a and not b and c() and not d'), '(((a and (not b)) and c()) and (not d))');
    assert.equal(grouped('not a or b'), '((not a) or b)');
    // `and` inside `or`: x and (not a) is one side of the `or`.
    assert.equal(grouped('x and not a or b'), '((x and (not a)) or b)');
    assert.equal(grouped('not not a and b'), '((not (not a)) and b)');
    // A comparison is one operand of `not`; parentheses keep their group.
    assert.equal(grouped('not a == b and c'), '((not a == b) and c)');
    assert.equal(grouped('not (a and b)'), '(not (a and b))');
    assert.equal(grouped('a or b and c'), '(a or (b and c))');
    assert.equal(grouped('a == b'), 'none');
  });

  it("decides Qwen-1's ZeRO-3 test as Python does: a LoRA run without DeepSpeed reaches its LoRA config", () => {
    // QwenLM/Qwen finetune.py (as copied by taishan1994/Llama3.1-Finetuning): the RuntimeError runs only under
    // ZeRO-3, which nothing here enables; read with `not` over the rest of the chain, the test was true and the LoRA
    // config after it (modules_to_save: the embedding and the head for a base model) was never reached.
    const train = [
      'import transformers',
      'from transformers import deepspeed',
      'from dataclasses import dataclass, field',
      'from peft import LoraConfig, get_peft_model',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(default="Qwen/Qwen-7B")',
      '@dataclass',
      'class TrainingArguments(transformers.TrainingArguments):',
      '    use_lora: bool = False',
      '@dataclass',
      'class LoraArguments:',
      '    q_lora: bool = False',
      'def train():',
      '    parser = transformers.HfArgumentParser((ModelArguments, TrainingArguments, LoraArguments))',
      '    model_args, training_args, lora_args = parser.parse_args_into_dataclasses()',
      "    is_chat_model = 'chat' in model_args.model_name_or_path.lower()",
      '    if (',
      '            training_args.use_lora',
      '            and not lora_args.q_lora',
      '            and deepspeed.is_deepspeed_zero3_enabled()',
      '            and not is_chat_model',
      '    ):',
      '        raise RuntimeError("ZeRO3 is incompatible with LoRA when finetuning on base model.")',
      '    model = transformers.AutoModelForCausalLM.from_pretrained(model_args.model_name_or_path)',
      '    if training_args.use_lora:',
      '        if is_chat_model:',
      '            modules_to_save = None',
      '        else:',
      '            modules_to_save = ["wte", "lm_head"]',
      '        lora_config = LoraConfig(r=64, target_modules=["c_attn"], modules_to_save=modules_to_save)',
      '        model = get_peft_model(model, lora_config)',
      'if __name__ == "__main__":',
      '    train()',
      '',
    ].join('\n');
    const line = 'torchrun --nproc_per_node 2 train.py --model_name_or_path Qwen/Qwen1.5-7B --use_lora True\n';
    const r = runPipeline(
      [{ file: '/w/run.sh', text: line }],
      inMemory({ '/w/train.py': train, '/w/run.sh': line }),
      {},
    );
    assert.deepEqual(r.setup?.lora?.modules_to_save, ['wte', 'lm_head']);
    assert.ok(!r.problems.some((p) => p.key === 'modules_to_save'));
  });
});

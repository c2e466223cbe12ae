// LoRA targets as PEFT reads them (peft/tuners/tuners_utils.py check_target_module_exists: a str is re.fullmatch-ed
// against each module's full name, a list matches by name or "." + suffix; peft/utils/constants.py
// TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING when target_modules is None), and targets that match nothing are
// located warnings naming the model's modules.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzeHfPython } from '../../../src/analyzers/hf-python';
import { runPipeline, type PipelineResult } from '../../../src/analyzers/pipeline';
import { estimate, PEFT_LORA_DEFAULT_TARGETS, type Estimate } from '../../../src/core';
import { resolveText } from '../helpers';

const load = (id: string): string => `model = AutoModelForCausalLM.from_pretrained("${id}")\n`;
const targets = (r: PipelineResult): unknown => r.setup?.lora?.target_modules;
/** The warnings, but the one every snippet without a Trainer gets (hf-python/index.ts noTrainingSeen). */
const warnings = (r: PipelineResult): string[] =>
  r.problems
    .filter((p) => p.severity === 'warning' && !/^no Trainer, TRL trainer or training loop/.test(p.message))
    .map((p) => `${p.line}:${p.column} ${p.message}`);

describe('LoRA targets as PEFT reads them', () => {
  it('a str target_modules is a regular expression over full module names', () => {
    // The vision-tower exclusion pattern of multimodal fine-tuning scripts (PEFT docs, "target_modules" as a regex).
    const r = resolveText(
      '/w/train.py',
      `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=16, target_modules=r"^(?!.*vision_tower).*\\.(q_proj|k_proj|v_proj|o_proj)$")\n`,
    );
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(targets(r), ['q_proj', 'k_proj', 'v_proj', 'o_proj']);
    assert.deepEqual(warnings(r), []);
    const gpt2 = resolveText(
      '/w/train.py',
      `${load('openai-community/gpt2')}config = LoraConfig(r=8, target_modules=r".*\\.c_attn")\n`,
    );
    assert.deepEqual(targets(gpt2), ['c_attn']);
    // The fact is the pattern, located at it.
    const facts = analyzeHfPython('config = LoraConfig(target_modules=".*q_proj")\n').facts.filter(
      (f) => f.key === 'loraTargetRegex',
    );
    assert.deepEqual(
      facts.map((f) => f.value),
      ['.*q_proj'],
    );
  });

  it("a bare name as a str matches no full module name: PEFT raises, said at the value with the model's modules", () => {
    const text = `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=8, target_modules="q_proj")\n`;
    const r = resolveText('/w/train.py', text);
    const w = warnings(r);
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.match(
      w[0],
      new RegExp(
        String.raw`^2:41 target_modules q_proj is a regular expression .* ` +
          String.raw`matches none of this llama model's: PEFT raises .* ` +
          String.raw`Its linear modules: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj$`,
      ),
    );
  });

  it("LoraConfig() without target_modules takes PEFT's default for the model type", () => {
    assert.deepEqual(PEFT_LORA_DEFAULT_TARGETS.bloom, ['query_key_value']);
    const bloom = resolveText('/w/train.py', `${load('bigscience/bloom-560m')}config = LoraConfig(r=8)\n`);
    assert.deepEqual(targets(bloom), ['query_key_value']);
    const gpt2 = resolveText('/w/train.py', `${load('openai-community/gpt2')}config = LoraConfig(r=8)\n`);
    assert.deepEqual(targets(gpt2), ['c_attn']);
    const llama = resolveText('/w/train.py', `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=8)\n`);
    assert.deepEqual(targets(llama), ['q_proj', 'v_proj']);
    // A model type PEFT has no default for: get_peft_model raises; said at LoraConfig.
    const moe = resolveText('/w/train.py', `${load('Qwen/Qwen3-30B-A3B')}config = LoraConfig(r=8)\n`);
    assert.match(
      warnings(moe).join('\n'),
      /^2:10 no target_modules, and PEFT has no default for model_type qwen3_moe: get_peft_model raises/m,
    );
  });

  it('a list that names no module of the model is a located warning, and a partly wrong one names the strays', () => {
    const none = resolveText(
      '/w/train.py',
      `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=8, target_modules=["query_key_value"])\n`,
    );
    assert.match(
      warnings(none).join('\n'),
      /^2:41 none of the LoRA target modules \(query_key_value\) is a module of this llama model: PEFT raises .*Its linear modules: q_proj, k_proj/m,
    );
    const some = resolveText(
      '/w/train.py',
      `${load('openai-community/gpt2')}config = LoraConfig(r=8, target_modules=["q_proj", "c_attn"])\n`,
    );
    assert.match(
      warnings(some).join('\n'),
      /^2:41 q_proj: not a module of this gpt2 model; PEFT adapts the other targets/m,
    );
    // The embedding and the output head are modules PEFT adapts (anyscale/templates' LLMForge LoRA config lists them
    // beside the seven projections): not strays, but not counted, and said so.
    const outside = resolveText(
      '/w/train.py',
      `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=8, target_modules=["q_proj", "embed_tokens", "lm_head"])\n`,
    );
    assert.match(
      warnings(outside).join('\n'),
      /^2:41 embed_tokens, lm_head: PEFT adapts these too \(the embedding, the output head\), which the estimate does not count/m,
    );
    assert.doesNotMatch(warnings(outside).join('\n'), /not a module of this/);
    // PEFT's suffix rule: "self_attn.q_proj" reaches q_proj.
    const dotted = resolveText(
      '/w/train.py',
      `${load('meta-llama/Llama-3.1-8B')}config = LoraConfig(r=8, target_modules=["self_attn.q_proj", "v_proj"])\n`,
    );
    assert.deepEqual(targets(dotted), ['q_proj', 'v_proj']);
    assert.deepEqual(warnings(dotted), []);
    // Qwen3-Next's Gated DeltaNet modules under linear_attn (axolotl-ai-cloud/axolotl@33975ce
    // examples/qwen3-next/qwen3-next-80b-a3b-qlora.yaml: `linear_attn.in_proj_qkvz`, `linear_attn.out_proj`).
    const list = '["linear_attn.in_proj_qkvz", "linear_attn.out_proj", "self_attn.q_proj"]';
    const next = resolveText(
      '/w/train.py',
      `${load('Qwen/Qwen3-Next-80B-A3B-Instruct')}config = LoraConfig(r=8, target_modules=${list})\n`,
    );
    assert.deepEqual(targets(next), ['q_proj', 'in_proj_qkvz', 'out_proj']);
    assert.deepEqual(warnings(next), []);
  });

  it("an image-text model's vision modules in the list are said to adapt the tower, not to be no module", () => {
    // Qwen2-VL's vision blocks: attn.qkv, attn.proj, mlp.fc1, mlp.fc2 (transformers modeling_qwen2_vl.py VisionAttention,
    // VisionMlp); the language model's q_proj ... down_proj beside them. PEFT's suffix rule adapts both.
    const load2 = 'model = Qwen2VLForConditionalGeneration.from_pretrained("Qwen/Qwen2-VL-7B-Instruct")\n';
    const both = resolveText(
      '/w/train.py',
      `${load2}config = LoraConfig(r=8, target_modules=["q_proj", "v_proj", "qkv", "fc1", "fc2"])\n`,
    );
    const w = warnings(both).join('\n');
    assert.match(
      w,
      /^2:41 qkv, fc1, fc2: modules of the vision tower or its projector: PEFT adapts them too, which the estimate does not count/m,
    );
    assert.doesNotMatch(w, /not a module of this/);
    assert.deepEqual(targets(both), ['q_proj', 'v_proj', 'qkv', 'fc1', 'fc2']);
    // Only the tower's: no layer of the language model is adapted, and PEFT does not raise.
    const tower = resolveText('/w/train.py', `${load2}config = LoraConfig(r=8, target_modules=["qkv", "proj"])\n`);
    const wt = warnings(tower).join('\n');
    assert.match(
      wt,
      /^2:41 qkv, proj: modules of the vision tower or its projector only: PEFT adapts them and no layer/m,
    );
    assert.doesNotMatch(wt, /PEFT raises/);
    // Qwen2.5-VL's vision MLP is SwiGLU (gate_proj / up_proj / down_proj, also the language model's names): only qkv
    // and proj are the tower's alone.
    const v25 = resolveText(
      '/w/train.py',
      'model = Qwen2_5_VLForConditionalGeneration.from_pretrained("Qwen/Qwen2.5-VL-7B-Instruct")\n' +
        'config = LoraConfig(r=8, target_modules=["q_proj", "qkv", "fc1"])\n',
    );
    assert.match(warnings(v25).join('\n'), /^2:41 qkv: modules of the vision tower/m);
    assert.match(warnings(v25).join('\n'), /^2:41 fc1: not a module of this qwen2 model/m);
  });

  it('a comma-separated string the script splits: .split(",") on a default, a dataclass option, and a launcher flag', () => {
    // huggingface/peft examples/dora_finetuning/dora_finetuning.py (the None default picks the else branch).
    const dora = [
      'import argparse',
      'parser = argparse.ArgumentParser()',
      'parser.add_argument("--lora_target_modules", type=str, default=None)',
      'args = parser.parse_args()',
      load('meta-llama/Llama-3.1-8B').trim(),
      'config = LoraConfig(r=8, target_modules=(args.lora_target_modules.split(",") if args.lora_target_modules',
      '    else ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))',
      '',
    ].join('\n');
    assert.deepEqual(targets(resolveText('/w/train.py', dora)), [
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
    ]);
    const split = resolveText('/w/train.py', dora.replace('default=None', 'default="q_proj,v_proj"'));
    assert.deepEqual(targets(split), ['q_proj', 'v_proj']);
    // An empty default is false in the test too (i-am-mushfiq/FirstAidQA-gemma2b-QLoRA train_v2.py: `default=""`).
    const empty = resolveText('/w/train.py', dora.replace('default=None', 'default=""'));
    assert.deepEqual(targets(empty), targets(resolveText('/w/train.py', dora)));
    // huggingface/peft examples/sft/train.py: `lora_target_modules: Optional[str] = field(default="q_proj,k_proj,...")`,
    // and run_peft_fsdp_gptq.sh: --lora_target_modules "q_proj,k_proj,v_proj,o_proj,up_proj,gate_proj".
    const script = [
      'from dataclasses import dataclass, field',
      'from typing import Optional',
      '@dataclass',
      'class ModelArguments:',
      '    model_name_or_path: str = field(metadata={"help": "Path to pretrained model"})',
      '    lora_r: Optional[int] = field(default=64)',
      '    lora_target_modules: Optional[str] = field(',
      '        default="q_proj,k_proj,v_proj,o_proj,down_proj,up_proj,gate_proj",',
      '    )',
      '    use_peft_lora: Optional[bool] = field(default=False)',
      'parser = HfArgumentParser((ModelArguments, TrainingArguments))',
      '',
    ].join('\n');
    const alone = analyzeHfPython(script).facts.find((f) => f.key === 'loraTargets');
    assert.deepEqual(alone?.value, ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'down_proj', 'up_proj', 'gate_proj']);
    const launcher =
      'torchrun --nproc_per_node 2 train.py --model_name_or_path meta-llama/Llama-3.1-8B ' +
      '--use_peft_lora True --lora_r 8 \\\n' +
      '  --lora_target_modules "q_proj,k_proj,v_proj,o_proj,up_proj,gate_proj" --output_dir o\n';
    const reader = {
      read: (): string | undefined => undefined,
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const r = runPipeline(
      [
        { file: '/w/run.sh', text: launcher },
        { file: '/w/train.py', text: script },
      ],
      reader,
      {},
    );
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(targets(r), ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'up_proj', 'gate_proj']);
    assert.deepEqual(
      warnings(r).filter((w) => /target/.test(w)),
      [],
    );
  });

  it("a launch line's regular expression for an option the script hands LoraConfig as a str is that regex", () => {
    // OpenBMB/MiniCPM-V finetune/finetune.py@74278de: `lora_target_modules: str = r"llm\..*layers\.\d+\.self_attn\.
    // (q_proj|k_proj|v_proj)"`, `LoraConfig(target_modules=lora_args.lora_target_modules)`; finetune_lora.sh passes
    // `--lora_target_modules "llm\..*layers\.\d+\.self_attn\.(q_proj|k_proj)"`. Here on a plain Llama, without `llm.`.
    const script = [
      'from dataclasses import dataclass, field',
      '@dataclass',
      'class LoraArguments:',
      '    lora_target_modules: str = r"model\\..*layers\\.\\d+\\.self_attn\\.(q_proj|k_proj|v_proj)"',
      'parser = HfArgumentParser((LoraArguments, TrainingArguments))',
      'lora_args, training_args = parser.parse_args_into_dataclasses()',
      load('meta-llama/Llama-3.1-8B').trim(),
      'model = get_peft_model(model, LoraConfig(r=8, target_modules=lora_args.lora_target_modules))',
      'Trainer(model=model, args=training_args).train()',
      '',
    ].join('\n');
    const launch = (flag: string) =>
      runPipeline(
        [
          { file: '/w/run.sh', text: `torchrun train.py --output_dir o --lora_target_modules "${flag}"\n` },
          { file: '/w/train.py', text: script },
        ],
        { read: () => undefined, join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r) },
        {},
      );
    assert.deepEqual(targets(launch('.*\\.(q_proj|k_proj)')), ['q_proj', 'k_proj']);
    // The repository's own pattern names MiniCPM-V's `llm.` wrapper: on this model it matches nothing, as in PEFT.
    const wrapped = launch('llm\\..*layers\\.\\d+\\.self_attn\\.(q_proj|k_proj)');
    assert.ok(
      warnings(wrapped).some((w) => /is a regular expression that PEFT matches against whole module names/.test(w)),
    );
  });

  it('a list of several words is taken as written: a trailing comma names no module (hzhang57/opt-r2)', () => {
    // grpo_trl.sh: `--lora_target_modules "q_proj", "v_proj"` gives TRL's ModelConfig (a list, nargs="+") the words
    // `q_proj,` and `v_proj`; PEFT matches `q_proj,` to no module and adapts v_proj alone.
    const script = 'from trl import ModelConfig, SFTConfig, TrlParser\nparser = TrlParser((SFTConfig, ModelConfig))\n';
    const line =
      'python sft.py --model_name_or_path Qwen/Qwen2.5-7B --use_peft --lora_target_modules "q_proj", "v_proj"\n';
    const reader = {
      read: (p: string): string | undefined => (p === '/w/sft.py' ? script : undefined),
      join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
    };
    const r = runPipeline([{ file: '/w/run.sh', text: line }], reader, {});
    assert.deepEqual(targets(r), ['q_proj,', 'v_proj']);
    assert.ok(
      warnings(r).some((w) => /q_proj,: not a module of this qwen2 model; PEFT adapts the other targets/.test(w)),
    );
    const e = estimate(r.setup!, {});
    assert.ok(e.ok);
    // v_proj alone: 28 layers x r 16 x (3584 in + 512 out), TRL ModelConfig's lora_r 16.
    assert.equal(e.estimate.parameters.trainable, 28 * 16 * (3584 + 512));
  });
});

describe("LoRA targets a scenario leaves to PEFT's default", () => {
  const scenario = (lines: string[]): PipelineResult => resolveText('/w/run.vram.yaml', lines.join('\n') + '\n');
  const estimated = (r: PipelineResult): Estimate => {
    assert.ok(r.setup, JSON.stringify(r.problems));
    const e = estimate(r.setup, { provenance: r.provenance });
    assert.ok(e.ok, JSON.stringify(e));
    return e.estimate;
  };
  const t0 = ['model: bigscience/T0_3B', 'method: lora'];

  it("a lora block without target_modules: T5's q and v, said as an assumption", () => {
    const r = scenario([...t0, 'lora: { r: 8, alpha: 32 }']);
    assert.ok(r.setup, JSON.stringify(r.problems));
    assert.deepEqual(targets(r), ['q', 'v']);
    assert.deepEqual(warnings(r), []);
    const said = estimated(r).assumptions.find((a) => a.key === 'lora.target_modules');
    assert.equal(said?.value, 'q, v');
    assert.match(said?.source ?? '', /PEFT's default for model_type t5/);
  });

  it('target_modules written are kept, and no assumption is said', () => {
    const r = scenario([...t0, 'lora: { r: 8, target_modules: [q, k, v, o] }']);
    assert.deepEqual(targets(r), ['q', 'k', 'v', 'o']);
    assert.equal(
      estimated(r).assumptions.find((a) => a.key === 'lora.target_modules'),
      undefined,
    );
  });

  it("no lora block: the estimate's own PEFT defaults name BLOOM's query_key_value, and warn", () => {
    const r = scenario(['model: bigscience/bloom-560m', 'method: lora']);
    const e = estimated(r);
    // bloom-560m: 24 layers x r 8 x (1,024 + 3,072) = 786,432 adapter parameters on query_key_value.
    assert.equal(e.parameters.trainable, 24 * 8 * (1024 + 3072));
    assert.ok(e.warnings.some((w) => w.key === 'lora' && /r=8 on query_key_value/.test(w.message)));
  });
});

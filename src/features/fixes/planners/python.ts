// The Python planner: HF TrainingArguments / TRL configs, PEFT LoraConfig, BitsAndBytesConfig, from_pretrained. Pure: no I/O.
import type { SetupChange } from '../../../core';
import { type Val, type Op, type PyCall, type Planned, op, ok, no, type PlanCtx, type Lora, type Quant } from '../ops';
import { pyCalls } from '../writers/python';
import { HF_OPTIM, HF_ATTN, HF_FSDP, TORCH_DTYPE } from './vocab';
import { str, seqKey, loraOps, type Rollout, rolloutKeys, promptKey } from './common';
import { planUnsloth } from './unsloth';
import { SETUP_FIELD_KEY } from '../../findings';
import { importsLlamaRecipesTrain, llamaRecipesField } from '../../../analyzers/hf-python/llama-recipes';

/** The script option a setup field comes from (its fact's key as the script names it), if a fact gives it. */
function optionOf(c: PlanCtx, key: string): string | undefined {
  const canonical = SETUP_FIELD_KEY[key];
  const f = canonical ? c.fact(canonical) : undefined;
  return f && /^\w+$/.test(f.rawKey) ? f.rawKey : undefined;
}

/** Setup fields a TrainingArguments / TRL config call sets: a file without one cannot take them. */
const TRAINING_ARGUMENT_FIELDS: ReadonlySet<string> = new Set([
  'micro_batch_size',
  'eval_batch_size',
  'gradient_accumulation_steps',
  'mixed_precision',
  'gradient_checkpointing',
  'optimizer',
  'loss',
  'compile',
  'activation_offloading',
  'fsdp',
  'seq_len',
]);

/** The script's calls a plan writes into: which kinds it has, and a keyword of its TrainingArguments / TRL config. */
interface ScriptCalls {
  readonly c: PlanCtx;
  readonly hasCall: (k: PyCall | 'trl') => boolean;
  readonly train: (path: string, value: Val, extra?: Partial<Op>) => Op;
}

/** HF TrainingArguments / TRL configs, PEFT LoraConfig, BitsAndBytesConfig, from_pretrained (FORMATS.md §2). */
/** Why a script that runs its training as a command (hf-python/shell-out.ts) takes no fix: its words are Python. */
const SHELL_OUT_FIX =
  'the script runs its training as a command: change the command in the script (no quick fix writes it)';

export function planPython(c: PlanCtx, ch: SetupChange): Planned {
  if (c.file.facts.launchesRun === true) return no(SHELL_OUT_FIX);
  const calls = pyCalls(c.file.text);
  const hasCall = (k: PyCall | 'trl'): boolean => calls.some((x) => x.kind === k);
  const train = (path: string, value: Val, extra: Partial<Op> = {}): Op =>
    op([path], value, { call: 'train', ...extra });
  const refused = notInThisFile(c, ch, hasCall('train') || hasCall('trl'));
  if (refused) return refused;
  if (hasCall('unsloth-load') || hasCall('unsloth-peft')) {
    const u = planUnsloth(c, ch, hasCall);
    if (u) return u;
  }
  return planTrainingArguments({ c, hasCall, train }, ch);
}

/**
 * Why the change is not written in this file: the script takes it from its command line (nanoGPT's train.py, Answer.AI's
 * fsdp_qlora), or it is a training argument and the file makes no TrainingArguments / TRL config; else undefined.
 */
function notInThisFile(c: PlanCtx, ch: SetupChange, trainCall: boolean): Planned | undefined {
  const option = c.file.facts.readsConfigurator ? optionOf(c, ch.key) : undefined;
  if (option)
    return no(`the script takes it from its command line: pass --${option} on the launch line, or change its default`);
  if (trainCall || !TRAINING_ARGUMENT_FIELDS.has(ch.key)) return undefined;
  if (importsLlamaRecipesTrain(c.file.text)) {
    const field = llamaRecipesField(ch.key);
    return no(
      field
        ? `llama-recipes' train() reads the file's train_config: set train_config.${field} by hand`
        : "llama-recipes' train() runs the loop: its train_config has no field for this change",
    );
  }
  return no(
    c.file.facts.tools.includes('litgpt')
      ? "Lit-GPT's script sets its run in module constants (micro_batch_size, devices, lora_*) and setup()'s defaults: change them by hand"
      : c.file.facts.tools.includes('pytorch')
        ? 'the training loop is written out in this file: its DataLoader, Accelerator, autocast and optimizer calls are changed by hand'
        : 'no TrainingArguments / TRL config call in this file (the script may read its settings from the command line)',
  );
}

function planTrainingArguments(s: ScriptCalls, ch: SetupChange): Planned {
  const { c, hasCall, train } = s;
  const v = ch.value;
  switch (ch.key) {
    case 'zero3_init':
      // TrainingArguments hands DeepSpeed's config to from_pretrained when it is made; the order is the script's.
      return no(
        'make the TrainingArguments (or parse them) before from_pretrained loads the model, so it is made inside deepspeed.zero.Init: move the load by hand',
      );
    case 'kbit_upcast':
      // The cast is the body of a library call; keeping its other two effects takes code, not a keyword.
      return no(
        'replace prepare_model_for_kbit_training(model) by model.gradient_checkpointing_enable() and model.enable_input_require_grads() by hand',
      );
    case 'micro_batch_size':
      return ok(train('per_device_train_batch_size', Number(v)));
    case 'eval_batch_size':
      return v === undefined ? ok(train('eval_strategy', 'no')) : ok(train('per_device_eval_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return ok(train('gradient_accumulation_steps', Number(v)));
    case 'mixed_precision':
      if (v === 'bf16') return ok(train('bf16', true), train('fp16', false, { when: 'present' }));
      if (v === 'fp16') return ok(train('fp16', true), train('bf16', false, { when: 'present' }));
      return ok(train('bf16', false), train('fp16', false, { when: 'present' }));
    case 'gradient_checkpointing':
      if (v === 'selective') return no('TrainingArguments has no selective checkpointing');
      return ok(train('gradient_checkpointing', v === 'full'));
    case 'optimizer': {
      const name = HF_OPTIM[str(v)];
      return name ? ok(train('optim', name)) : no(`HF optim has no name for ${str(v)}`);
    }
    case 'loss':
      return loss(s, v);
    case 'compile':
      return ok(train('torch_compile', Boolean(v)));
    case 'preference':
      return preference(s, (v as { reference?: string } | undefined)?.reference);
    case 'activation_offloading':
      return hasCall('trl')
        ? ok(train('activation_offloading', Boolean(v)))
        : no('activation_offloading is a TRL config key; TrainingArguments has none');
    case 'fsdp': {
      const f = HF_FSDP[str(v)];
      return f === undefined ? no(`no fsdp option for ${str(v)}`) : ok(train('fsdp', f));
    }
    case 'rollout': {
      const keys = rolloutKeys(c, v as Rollout);
      if (typeof keys === 'string') return no(keys);
      return hasCall('trl') ? ok(...keys.map(([k, x]) => train(k, x))) : no('the rollout settings are GRPOConfig keys');
    }
    case 'seq_len':
      return seqLen(s, Number(v));
    case 'attention':
    case 'weights_dtype':
    case 'method':
    case 'lora':
    case 'quantization':
      return planModelCalls(c, ch, hasCall);
    case 'fsdp_no_sync':
      return no(
        'a dict argument is not written: add accelerator_config={"gradient_accumulation_kwargs": {"sync_each_batch": ' +
          'True}} to TrainingArguments (or GradientAccumulationPlugin(sync_each_batch=True) to an Accelerator)',
      );
    default:
      return no(`a TrainingArguments script has no setting for ${ch.key}`);
  }
}

/** Liger's fused loss: DPOConfig's use_liger_loss for a preference run (use_liger_kernel patches the model only). */
function loss({ c, train }: ScriptCalls, v: unknown): Planned {
  if (c.file.facts.facts.some((f) => f.key === 'preference'))
    return v === 'fused'
      ? ok(train('use_liger_loss', true))
      : v === 'full'
        ? ok(train('use_liger_loss', false, { when: 'present' }))
        : no('DPOConfig has no chunked loss');
  if (v === 'fused') return ok(train('use_liger_kernel', true));
  if (v === 'full') return ok(train('use_liger_kernel', false, { when: 'present' }));
  return no('TrainingArguments has no chunked-loss switch');
}

/** The reference log-probabilities of DPOConfig: precomputed, or the reference model run each step. */
function preference({ hasCall, train }: ScriptCalls, ref: string | undefined): Planned {
  if (!hasCall('trl')) return no('the reference log-probabilities are a DPOConfig setting (precompute_ref_log_probs)');
  if (ref === 'precomputed') return ok(train('precompute_ref_log_probs', true));
  if (ref === 'copy' || ref === 'adapters-off')
    return ok(train('precompute_ref_log_probs', false, { when: 'present' }));
  return no('switching the preference objective needs another trainer');
}

/** A GRPO run's prompt length, else the config's sequence length (TRL's max_length, the file's own key). */
function seqLen({ c, hasCall, train }: ScriptCalls, n: number): Planned {
  if (c.fact('rollout') && c.fact('rollout')?.value !== 'online-dpo')
    return hasCall('trl')
      ? ok(train(...promptKey(c, n)))
      : no('the prompt length is a GRPOConfig key (max_prompt_length)');
  const k = seqKey(c, hasCall('trl') ? 'max_length' : undefined);
  return k
    ? ok(train(k, n))
    : no('TrainingArguments has no sequence length; it is a data or tokenizer setting of the script');
}

/** The keys written into the model's own calls: from_pretrained (attention, dtype), LoraConfig, BitsAndBytesConfig. */
function planModelCalls(c: PlanCtx, ch: SetupChange, hasCall: (k: PyCall | 'trl') => boolean): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'attention': {
      const name = HF_ATTN[str(v)];
      if (!name) return no(`no attn_implementation for ${str(v)}`);
      if (hasCall('load')) return ok(op(['attn_implementation'], name, { call: 'load' }));
      const f = c.fact('attention');
      if (f && f.rawKey === 'attn_implementation')
        return no('attn_implementation sits inside a dict (model_init_kwargs); edit it by hand');
      return no('no from_pretrained(...) call to pass attn_implementation to');
    }
    case 'weights_dtype': {
      const name = TORCH_DTYPE[str(v)];
      if (!name || !hasCall('load')) return no('no from_pretrained(...) call to pass the dtype to');
      const kw = /\bdtype\s*=/.test(c.file.text) && !/\btorch_dtype\s*=/.test(c.file.text) ? 'dtype' : 'torch_dtype';
      if (!/^\s*import torch\b|^\s*import torch$/m.test(c.file.text))
        return no('the file does not import torch, so torch.<dtype> cannot be written');
      return ok(op([kw], { raw: `torch.${name}` }, { call: 'load' }));
    }
    case 'method': {
      if (v === 'lora' || v === 'qlora') {
        if (!hasCall('lora'))
          return no('the file builds no LoraConfig; switching to LoRA needs new code (get_peft_model / peft_config)');
        if (v === 'qlora' && !hasCall('bnb'))
          return no('the file builds no BitsAndBytesConfig; QLoRA needs a 4-bit quantization_config in code');
        return v === 'qlora'
          ? ok(
              op(['load_in_4bit'], true, { call: 'bnb' }),
              op(['load_in_8bit'], false, { call: 'bnb', when: 'present' }),
            )
          : ok();
      }
      return no(`switching the method to ${str(v)} needs code changes (the LoraConfig / get_peft_model calls)`);
    }
    case 'lora': {
      if (!hasCall('lora')) return no('the file builds no LoraConfig');
      const l = v as Lora;
      const ops = loraOps(
        l,
        { r: 'r', alpha: 'lora_alpha', dropout: 'lora_dropout', dora: 'use_dora' },
        (t) => [op(['target_modules'], t === 'all-linear' ? 'all-linear' : [...t], { call: 'lora' })],
        { call: 'lora' },
      );
      if (l.modules_to_save && l.modules_to_save.length > 0)
        ops.push(op(['modules_to_save'], [...l.modules_to_save], { call: 'lora' }));
      return ok(...ops);
    }
    case 'quantization': {
      const q = v as Quant | undefined;
      if (!hasCall('bnb')) return no('the file builds no BitsAndBytesConfig');
      if (!q)
        return ok(
          op(['load_in_4bit'], false, { call: 'bnb', when: 'present' }),
          op(['load_in_8bit'], false, { call: 'bnb', when: 'present' }),
        );
      if (q.bits === 8)
        return ok(
          op(['load_in_8bit'], true, { call: 'bnb' }),
          op(['load_in_4bit'], false, { call: 'bnb', when: 'present' }),
        );
      const ops = [
        op(['load_in_4bit'], true, { call: 'bnb' }),
        op(['load_in_8bit'], false, { call: 'bnb', when: 'present' }),
      ];
      if (q.type === 'nf4' || q.type === 'fp4') ops.push(op(['bnb_4bit_quant_type'], q.type, { call: 'bnb' }));
      if (q.double_quant !== undefined) ops.push(op(['bnb_4bit_use_double_quant'], q.double_quant, { call: 'bnb' }));
      return ok(...ops);
    }
    default:
      return no(`a TrainingArguments script has no setting for ${ch.key}`);
  }
}

// The LitGPT config planner (litgpt finetune_lora / finetune_full / pretrain --config). Pure: no I/O.
// Semantics: Lightning-AI/litgpt@2685705 litgpt/finetune/lora.py setup(), litgpt/args.py TrainArgs.
import type { CanonicalKey } from '../../../analyzers/facts';
import type { SetupChange } from '../../../core';
import { type Lora, type Op, type PlanCtx, type Planned, type Quant, no, ok, op } from '../ops';
import { str } from './common';

/** Fabric precision strings by (weights dtype, autocast dtype). */
const PRECISION: Readonly<Record<string, string>> = {
  'bf16/none': 'bf16-true',
  'fp16/none': '16-true',
  'fp32/bf16': 'bf16-mixed',
  'fp32/fp16': '16-mixed',
  'fp32/none': '32-true',
};

/** LitGPT's LoRA switches and the module names each one adapts (the analyzer's table, by the names a target list uses). */
const SWITCHES: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['lora_query', ['q_proj']],
  ['lora_key', ['k_proj']],
  ['lora_value', ['v_proj']],
  ['lora_projection', ['o_proj']],
  ['lora_mlp', ['gate_proj', 'up_proj', 'down_proj', 'fc1', 'fc2', 'dense_h_to_4h', 'dense_4h_to_h']],
  ['lora_head', ['lm_head']],
];

function numberFact(c: PlanCtx, k: CanonicalKey): number | undefined {
  const v = c.fact(k)?.value;
  return typeof v === 'number' ? v : undefined;
}

function precisionOp(c: PlanCtx): Planned {
  const weights = str(c.changed('weights_dtype') ?? c.fact('weightsDtype')?.value ?? 'fp32');
  const autocast = str(c.changed('mixed_precision') ?? c.fact('mixedPrecision')?.value ?? 'none');
  const p = PRECISION[`${weights}/${autocast}`];
  return p ? ok(op('precision', p)) : no(`Fabric has no precision for ${weights} weights with ${autocast} autocast`);
}

/** The LoRA switches for a target list: every target must be one of the switches' modules. */
function loraSwitches(targets: readonly string[] | 'all-linear'): Op[] | string {
  if (targets === 'all-linear') return SWITCHES.filter(([k]) => k !== 'lora_head').map(([k]) => op(k, true));
  const wanted = new Set(targets.map((t) => t.split('.').pop() ?? t));
  const unknown = [...wanted].filter((t) => !SWITCHES.some(([, names]) => names.includes(t)));
  if (unknown.length > 0) return `LitGPT's LoRA switches cannot select ${unknown.join(', ')}`;
  return SWITCHES.map(([k, names]) =>
    op(
      k,
      names.some((n) => wanted.has(n)),
    ),
  );
}

function planLora(c: PlanCtx, l: Lora): Planned {
  if (!c.fact('loraTargets')) return no('LoRA settings belong to a `litgpt finetune_lora` config');
  const ops: Op[] = [];
  if (l.r !== undefined) ops.push(op('lora_r', l.r));
  if (l.alpha !== undefined) ops.push(op('lora_alpha', l.alpha));
  if (l.dropout !== undefined) ops.push(op('lora_dropout', l.dropout));
  if (l.use_dora) return no('LitGPT has no DoRA');
  if (l.target_modules !== undefined) {
    const switches = loraSwitches(l.target_modules);
    if (typeof switches === 'string') return no(switches);
    ops.push(...switches);
  }
  return ok(...ops);
}

function planQuantization(c: PlanCtx, q: Quant | undefined): Planned {
  if (!q) return no('remove `quantize` by hand (LitGPT reads its absence as no quantization)');
  if ((numberFact(c, 'gpusPerNode') ?? 1) * (numberFact(c, 'nodes') ?? 1) > 1)
    return no('LitGPT trains quantized models on one GPU only');
  const kind = q.bits === 8 ? 'int8-training' : `${q.type === 'fp4' ? 'fp4' : 'nf4'}${q.double_quant ? '-dq' : ''}`;
  return ok(
    op('quantize', `bnb.${kind}`),
    ...(c.fact('mixedPrecision')?.value !== 'none' ? [op('precision', 'bf16-true')] : []),
  );
}

function planAccumulation(c: PlanCtx, steps: number): Planned {
  const micro = Number(c.changed('micro_batch_size') ?? numberFact(c, 'microBatchSize') ?? NaN);
  const world =
    Number(c.changed('gpus_per_node') ?? numberFact(c, 'gpusPerNode') ?? 1) *
    Number(c.changed('nodes') ?? numberFact(c, 'nodes') ?? 1);
  if (!Number.isFinite(micro) || !Number.isFinite(world))
    return no('train.global_batch_size needs the micro-batch and the GPU count');
  return ok(op('train.global_batch_size', steps * micro * world));
}

/** LitGPT config YAML (FORMATS.md, LitGPT). */
export function planLitgpt(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return ok(op('train.micro_batch_size', Number(v)));
    case 'gradient_accumulation_steps':
      return planAccumulation(c, Number(v));
    case 'seq_len':
      return ok(op('train.max_seq_length', Number(v)));
    case 'weights_dtype':
    case 'mixed_precision':
      return precisionOp(c);
    case 'gpus_per_node':
      return ok(op('devices', Number(v)));
    case 'nodes':
      return c.fact('nodes') || Number(v) !== 1 ? ok(op('num_nodes', Number(v))) : ok();
    case 'optimizer':
      if (v === 'adamw' || (v === 'paged_adamw' && c.fact('quantBits'))) return ok(op('optimizer', 'AdamW'));
      return no(`write the optimizer's class_path for ${str(v)} by hand`);
    case 'method': {
      const method = c.fact('method')?.value;
      if (v === method || (v === 'qlora' && method === 'lora')) {
        return v === 'qlora' ? planQuantization(c, { bits: 4, type: 'nf4' }) : ok();
      }
      return no('the method is the command (litgpt finetune_lora or finetune_full), not a key of this file');
    }
    case 'lora':
      return planLora(c, v as Lora);
    case 'quantization':
      return planQuantization(c, v as Quant | undefined);
    case 'gradient_checkpointing':
      return no('LitGPT checkpoints every block when it shards over several GPUs (devices > 1), and never on one');
    default:
      return no(`LitGPT has no setting for ${ch.key}`);
  }
}

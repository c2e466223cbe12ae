// The planner of a JSON / YAML file a script loads for its values (analyzers/script-data.ts): a change is written at the
// key the script reads it from, as the kind of value already written there (a number, a boolean switch, an HF optimizer
// or attention name, a dtype name), so the script reads the new value as it read the old. Only keys the file holds are
// rewritten: where the script reads a key from is the script's, and a new key would be read by nothing. Pure.
import type { CanonicalKey, Fact } from '../../../analyzers/facts';
import type { SetupChange } from '../../../core';
import { type Lora, no, ok, op, type Op, type Planned, type PlanCtx, type Val } from '../ops';
import { str } from './common';
import { ACCELERATE_MP, HF_ATTN, HF_OPTIM, TORCH_DTYPE } from './vocab';

const BOOLEAN = /^(true|false|True|False|yes|no)$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/;

/** The operation that rewrites the file's key of a fact, when the value written there is of the kind `kind` matches. */
function rewrite(f: Fact | undefined, kind: RegExp, value: Val): Op | undefined {
  return f?.fromData && kind.test(unquoted(f.rawValue)) ? op(f.fromData.keys, value, { when: 'present' }) : undefined;
}

/** A scalar's text without its quotes. */
function unquoted(text: string): string {
  return text.replace(/^(["'])(.*)\1$/, '$2');
}

/** Each operation, or the reason the file cannot take the change when one is missing. */
function all(ch: SetupChange, ...ops: Array<Op | undefined>): Planned {
  const kept = ops.filter((o): o is Op => o !== undefined);
  return kept.length === ops.length && kept.length > 0
    ? ok(...kept)
    : no(`the script reads ${ch.key} from this file as a value VRAM Lens does not rewrite here`);
}

/** A name of a vocabulary: the file's key rewritten to it where it holds a name of the same vocabulary. */
function named(c: PlanCtx, ch: SetupChange, key: CanonicalKey, vocab: Readonly<Record<string, string>>): Planned {
  const f = c.fact(key);
  const name = vocab[str(ch.value)];
  if (!f?.fromData || !name || !Object.values(vocab).includes(unquoted(f.rawValue))) return all(ch, undefined);
  return ok(op(f.fromData.keys, name, { when: 'present' }));
}

/** The LoRA settings the file holds: rank, alpha, dropout (numbers), the target list (a list or "all-linear"). */
function loraOps(c: PlanCtx, ch: SetupChange): Planned {
  const l = ch.value as Lora;
  const ops: Array<Op | undefined> = [];
  if (l.r !== undefined) ops.push(rewrite(c.fact('loraR'), NUMBER, l.r));
  if (l.alpha !== undefined) ops.push(rewrite(c.fact('loraAlpha'), NUMBER, l.alpha));
  if (l.dropout !== undefined) ops.push(rewrite(c.fact('loraDropout'), NUMBER, l.dropout));
  if (l.target_modules !== undefined) {
    const t = c.fact('loraTargets');
    ops.push(
      t?.fromData && op(t.fromData.keys, l.target_modules === 'all-linear' ? 'all-linear' : [...l.target_modules]),
    );
  }
  return all(ch, ...ops);
}

/** Precision: the file's bf16 / fp16 switches, or its mixed-precision name (Accelerate's no / bf16 / fp16). */
function precisionOps(c: PlanCtx, ch: SetupChange): Planned {
  if (c.fact('mixedPrecision')) return named(c, ch, 'mixedPrecision', ACCELERATE_MP);
  const bf16 = c.fact('bf16');
  const fp16 = c.fact('fp16');
  if (!bf16 && !fp16) return all(ch, undefined);
  return all(
    ch,
    ...(bf16 ? [rewrite(bf16, BOOLEAN, ch.value === 'bf16')] : []),
    ...(fp16 ? [rewrite(fp16, BOOLEAN, ch.value === 'fp16')] : []),
  );
}

export function planScriptData(c: PlanCtx, ch: SetupChange): Planned {
  const v = ch.value;
  switch (ch.key) {
    case 'micro_batch_size':
      return all(ch, rewrite(c.fact('microBatchSize'), NUMBER, Number(v)));
    case 'gradient_accumulation_steps':
      return all(ch, rewrite(c.fact('gradientAccumulationSteps'), NUMBER, Number(v)));
    case 'seq_len':
      return all(ch, rewrite(c.fact('seqLen'), NUMBER, Number(v)));
    case 'gradient_checkpointing':
      return v === 'selective'
        ? no('the script switches checkpointing on or off: it has no selective checkpointing')
        : all(ch, rewrite(c.fact('gradientCheckpointing'), BOOLEAN, v === 'full'));
    case 'mixed_precision':
      return precisionOps(c, ch);
    case 'weights_dtype':
      return named(c, ch, 'weightsDtype', TORCH_DTYPE);
    case 'optimizer':
      return named(c, ch, 'optimizer', HF_OPTIM);
    case 'attention':
      return named(c, ch, 'attention', HF_ATTN);
    case 'lora':
      return loraOps(c, ch);
    default:
      return no(`the script does not read ${ch.key} from this file`);
  }
}

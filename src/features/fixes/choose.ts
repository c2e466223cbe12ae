// Choosing files: a change is written to every file that sets its key, else to the first file of a format that owns
// the concept, else to the file the fix was asked in; keys derived from others and absent keys that already mean the
// value need no edit. Pure: no I/O.
import { isUnknown, type Format } from '../../analyzers/facts';
import type { SetupChange } from '../../core';
import { type FixFile, type Val, type Op, op, failed, RELATED } from './ops';
import { plan } from './planners';

/** Which formats own a concept, in order of preference, when no file writes it yet. */
const TRAINER_FORMATS: readonly Format[] = [
  'scenario',
  'hf-python',
  'hf-yaml',
  'axolotl-yaml',
  'llamafactory-yaml',
  'torchtune-yaml',
  'litgpt-yaml',
  'verl-yaml',
  'hydra-yaml',
  'llmfoundry-yaml',
  'swift-yaml',
  'shell',
];
const OWNERS: Partial<Record<string, readonly Format[]>> = {
  zero_stage: ['scenario', 'deepspeed-json', 'accelerate-yaml'],
  offload_optimizer: ['scenario', 'deepspeed-json', 'accelerate-yaml', 'torchtune-yaml'],
  offload_params: ['scenario', 'deepspeed-json', 'accelerate-yaml', 'torchtune-yaml'],
  mixed_precision: [...TRAINER_FORMATS, 'accelerate-yaml', 'deepspeed-json'],
  micro_batch_size: [...TRAINER_FORMATS, 'deepspeed-json'],
  gradient_accumulation_steps: [...TRAINER_FORMATS, 'deepspeed-json', 'accelerate-yaml'],
  gpus_per_node: ['scenario', 'shell', 'accelerate-yaml', 'verl-yaml'],
  nodes: ['scenario', 'shell', 'accelerate-yaml', 'verl-yaml'],
  fsdp: [...TRAINER_FORMATS, 'accelerate-yaml'],
  fsdp_no_sync: ['scenario', 'hf-yaml', 'axolotl-yaml'],
  fsdp_state_dict_type: ['scenario', 'accelerate-yaml', 'axolotl-yaml', 'shell'],
};

/** Setup keys whose value follows from the others (DeepSpeed / FSDP keep the fp32 master copy by themselves). */
const DERIVED = new Set(['master_weights']);

/** The value a key has when no file writes it (so writing nothing is correct). */
const ABSENT_MEANS: Partial<Record<string, unknown>> = {
  zero_stage: 0,
  offload_optimizer: 'none',
  offload_params: 'none',
  fsdp: 'none',
  nodes: 1,
  compile: false,
  activation_offloading: false,
  tiled_mlp: false,
};

/**
 * Whether a file writes the key: a known value, or (`known` false) any value but "auto". A script's read of an item of
 * a file it loads (Fact.fromData) is not: the value is written in that file, which the run holds with the item.
 */
function setsKey(file: FixFile, key: string, known = false): boolean {
  const rel = RELATED[key];
  if (!rel) return false;
  return file.facts.facts.some(
    (f) =>
      rel.includes(f.key) &&
      f.origin !== 'call-default' &&
      (!f.fromData || file.format === 'script-data' || file.format === 'project-yaml') &&
      (known
        ? !isUnknown(f.value)
        : // "auto" is filled from the trainer's arguments: the file follows the trainer, it does not set the value.
          !(isUnknown(f.value) && /^auto/.test(f.value.unknown))),
  );
}

/**
 * The files that write a key. Where some write a value and others only read one at run time (a script's
 * `r=config.model.peft.lora_r` beside the Hydra config that sets it, `args.batch_size` beside the launch line's
 * flag), the value is written where it is set: the reads follow it.
 */
function settersOf(files: readonly FixFile[], key: string): FixFile[] {
  const known = files.filter((f) => setsKey(f, key, true));
  return known.length > 0 ? known : files.filter((f) => setsKey(f, key));
}

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The operations (per file) for one change: every file that sets the key, else the owner, else the primary file. */
export function planChange(
  ch: SetupChange,
  changes: readonly SetupChange[],
  files: readonly FixFile[],
  primaryFile: string,
): Map<FixFile, readonly Op[]> | { reason: string } {
  const out = new Map<FixFile, readonly Op[]>();
  if (DERIVED.has(ch.key)) return out;
  const scenario = files.find((f) => f.format === 'scenario' && f.file === primaryFile);
  if (scenario) {
    out.set(scenario, [op([ch.key], ch.value as Val)]);
    return out;
  }
  // LoRA and QLoRA load the base model in the training dtype (resolve/precision.ts applies the same rule), so a
  // weights dtype that comes with a method change is written only where a file can say it.
  const implied =
    ch.key === 'weights_dtype' &&
    changes.some((c) => c.key === 'method' && (c.value === 'lora' || c.value === 'qlora'));
  const setters = settersOf(files, ch.key);
  const reasons: string[] = [];
  if (setters.length > 0) {
    for (const f of setters) {
      const p = plan(f, ch, changes);
      if (failed(p)) {
        if (implied) return new Map();
        return { reason: `${f.file} sets ${ch.key}, but ${p.reason}` };
      }
      out.set(f, p.ops);
    }
    return out;
  }
  if (ABSENT_MEANS[ch.key] !== undefined && sameValue(ABSENT_MEANS[ch.key], ch.value)) return out;
  const owners = OWNERS[ch.key] ?? TRAINER_FORMATS;
  const ordered = [
    ...owners.flatMap((fmt) => files.filter((f) => f.format === fmt)),
    ...files.filter((f) => f.file === primaryFile),
  ];
  const tried = new Set<FixFile>();
  for (const f of ordered) {
    if (tried.has(f)) continue;
    tried.add(f);
    const p = plan(f, ch, changes);
    if (!failed(p)) {
      out.set(f, p.ops);
      return out;
    }
    reasons.push(`${f.file}: ${p.reason}`);
  }
  if (implied) return out;
  return { reason: reasons.length ? reasons.join('; ') : `no file can express ${ch.key}` };
}

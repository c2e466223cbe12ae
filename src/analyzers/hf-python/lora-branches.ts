// LoRA on the branches of an `if`: a LoraConfig built where the script's options decide it (`if args.use_lora:`,
// `if args.train_mode == "full": ... else: LoraConfig(...)`), read as LoRA where its branch runs, a full fine-tune
// where it does not, unknown where the options leave it open. Pure.
import type { SyntaxNode } from '@lezer/common';
import { isUnknown, type Fact } from '../facts';
import type { PythonFile } from './file';
import { branchTaken, conditionOf, falseTest } from './branches';
import { loraCall, syntaxIn } from './calls';
import { span } from './syntax';
import { enclosingFunction } from './loop';

/** The PEFT configs a script may build (LoraConfig and the others PEFT has). */
export const PEFT_CONFIG =
  /(^|\.)(LoraConfig|IA3Config|AdaLoraConfig|LoHaConfig|LoKrConfig|OFTConfig|BOFTConfig|VeraConfig)$/;

/**
 * A LoraConfig, built on a branch: LoRA when the branch is known to run (its tests read from the script's defaults),
 * nothing when it is known not to (`if args.use_lora:` with use_lora False), unknown otherwise.
 */
export function loraConfig(file: PythonFile, c: SyntaxNode, switchedOff: SyntaxNode[]): void {
  const calleeNode = c.firstChild!;
  const fn = enclosingFunction(file, c);
  // InternVL's model methods: wrap_llm_lora is read at its call in the script (internvl.ts), where its branch runs; the
  // vision tower's wrap_backbone_lora is not counted.
  if (fn !== undefined && INTERNVL_WRAPS.has(fn) && /\bclass\s+InternVLChatModel\b/.test(file.text)) return;
  loraCall(file, c);
  const taken = builtOnlyWhereNotRun(file, fn) ? false : branchTaken(file, c);
  const cond = taken === undefined ? conditionOf(file, c) : undefined;
  if (taken === false) switchedOff.push(c);
  else {
    file.facts.push({
      key: 'method',
      rawKey: 'LoraConfig',
      value: cond ? { unknown: `LoRA is applied only when ${cond}` } : 'lora',
      rawValue: 'LoraConfig(...)',
      keySpan: span(calleeNode),
      valueSpan: span(calleeNode),
      tool: 'peft',
    });
  }
  syntaxIn(file, c, 'LoraConfig');
}

/** InternVLChatModel's methods that build its LoRA configs (modeling_internvl_chat.py). */
const INTERNVL_WRAPS = new Set(['wrap_llm_lora', 'wrap_backbone_lora']);

/**
 * A config built in a function the file calls only on branches known not to run (a model's `wrap_backbone_lora`
 * called under `if model_args.use_backbone_lora:` with the field's default 0).
 */
function builtOnlyWhereNotRun(file: PythonFile, fn: string | undefined): boolean {
  if (fn === undefined) return false;
  const sites = file.calls.filter((d) => file.calleeName(d)?.split('.').pop() === fn);
  return sites.length > 0 && sites.every((d) => branchTaken(file, d) === false);
}

/**
 * A LoraConfig only built behind an `if` known to be false (`if training_args.use_lora:` with `use_lora: bool = False`),
 * with no other method in the file: the model is fully fine-tuned, as the script runs when its launcher passes nothing.
 * Its LoRA keys stay (a launcher's `--use_lora` turns the branch on), so the method is said outright, at the test, as
 * the script's default of that switch: LoRA when the launch line turns it on, a full fine-tune when it does not.
 */
export function fullUnlessSwitchedOn(file: PythonFile, offBranch: readonly SyntaxNode[]): void {
  if (offBranch.length === 0 || file.facts.some((f) => f.key === 'method' && !isUnknown(f.value))) return;
  const off = falseTest(file, offBranch[0]);
  // A test other than one switch (`if args.train_mode == 'full':` around its else's LoraConfig, Firefly's train.py):
  // a full fine-tune, said at the config, as the options the script is read with decide it. A PEFT config handed on
  // from a value looked up at run time (`peft_config=components['peft_config']`) is that config, or None.
  if (!off) {
    const others = file.calls.some((c) => PEFT_CONFIG.test(file.calleeName(c) ?? '') && !offBranch.includes(c));
    if (others) return;
    file.facts = file.facts.filter((f) => f.key !== 'method');
    const callee = span(offBranch[0].firstChild!);
    file.facts.push({
      key: 'method',
      rawKey: 'LoraConfig',
      value: 'full',
      rawValue: `LoraConfig(...) on a branch that does not run with these options (line ${file.line(offBranch[0].from)})`,
      keySpan: callee,
      valueSpan: callee,
      tool: 'peft',
    });
    return;
  }
  if (file.facts.some((f) => f.key === 'method')) return;
  const at = span(off.test);
  const before = file.facts.length;
  file.push(
    'method',
    { rawKey: 'LoraConfig', keySpan: at, valueNode: off.test, valueSpan: at },
    'full',
    'peft',
    off.value,
  );
  const f = file.facts[before];
  if (f?.fromArg) file.facts[before] = { ...f, fromArg: { ...f.fromArg, switched: { on: 'lora', off: 'full' } } };
}

/**
 * Where a LoraConfig on a branch that runs gives the run its LoRA (`if a.method == "lora-attention":` with the launch
 * line's `--method lora-attention`), the values of those on branches known not to run are not the run's: dropped
 * (a later `elif a.method == "lora-all":` config's all-linear targets read over the first one's before).
 */
export function onlyTakenLora(file: PythonFile, offBranch: readonly SyntaxNode[]): void {
  if (offBranch.length === 0) return;
  const taken = file.facts.some((f) => f.key === 'method' && f.rawKey === 'LoraConfig' && f.value === 'lora');
  if (!taken) return;
  const inside = (f: Fact): boolean => offBranch.some((c) => f.keySpan.start >= c.from && f.keySpan.end <= c.to);
  file.facts = file.facts.filter((f) => !inside(f));
}

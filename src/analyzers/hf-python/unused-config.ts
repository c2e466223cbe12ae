// A PEFT config a training script makes and never hands on: `config = LoraConfig(...)` whose name nothing reads (its
// `model = get_peft_model(model, config)` commented out: datawhalechina/self-llm MiniCPM/train.py) applies no LoRA.
// Likewise TRL's `ModelConfig(...)` of which the script reads only the model's name (`GRPOTrainer(model=
// model_config.model_name_or_path, ...)`, 0xSingletOnly/LiMing's grpo.ipynb): TRL's trainers never read a ModelConfig
// (its example scripts pass its 4-bit load on through get_quantization_config and its LoRA through get_peft_config),
// so its dtype, quantization and LoRA settings do not apply. So does a `BitsAndBytesConfig(...)` bound to a name nothing
// reads (D-Katt/llm_tuning's train_lora.py: `quant_config = BitsAndBytesConfig(load_in_8bit=True)` beside a
// `from_pretrained` whose `# quantization_config=quant_config,` is commented out): the model loads unquantized. Read
// in a script that trains (a Trainer or a loop of its
// own), not in a module the script imports, which may make a config the script reads. Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { assignedName, children, span } from './syntax';
import { branchTaken, sideTaken } from './branches';

/** The facts of each LoraConfig call whose value nothing reads dropped, said at the call. */
export function dropUnusedConfigs(file: PythonFile, calls: readonly SyntaxNode[]): void {
  // A script that makes its trainer (or calls .train() on one): not a snippet that builds configs for another file.
  const trains = calls.some((c) => /(^|\.)(\w*Trainer|train)$/.test(file.calleeName(c) ?? ''));
  if (!trains) return;
  for (const c of calls) {
    const last = file.calleeName(c)?.split('.').pop();
    if ((last === 'LoraConfig' || last === 'BitsAndBytesConfig') && unusedConfig(file, c))
      file.facts = file.facts.filter((f) => f.keySpan.start < c.from || f.keySpan.end > c.to);
    if (last === 'ModelConfig' && onlyModelNameRead(file, c))
      file.facts = file.facts.filter((f) => f.key === 'model' || f.keySpan.start < c.from || f.keySpan.end > c.to);
    if (last === 'TrlParser' || last === 'HfArgumentParser')
      file.modelConfigNameOnly ||= parsedNameOnly(file, c, calls);
  }
}

/**
 * Whether a parser given TRL's ModelConfig (`TrlParser((ScriptArguments, GRPOConfig, ModelConfig))`) binds it, where
 * the script parses, to a name the script reads only for the model's name
 * (`script_cfg, grpo_cfg, model_cfg = parser.parse_args_and_config()`, then `model_cfg.model_name_or_path`).
 */
function parsedNameOnly(file: PythonFile, parserCall: SyntaxNode, calls: readonly SyntaxNode[]): boolean {
  const parser = assignedName(parserCall, file.text);
  const first = file.args(parserCall).positional[0];
  const tuple = first?.name === 'ParenthesizedExpression' ? first.firstChild?.nextSibling : first;
  const classes = tuple?.name === 'TupleExpression' ? children(tuple).filter((n) => n.name === 'VariableName') : [];
  const at = classes.findIndex((n) => file.text.slice(n.from, n.to) === 'ModelConfig');
  if (!parser || at < 0) return false;
  const parse = calls.find((c) =>
    /^(parse_args_and_config|parse_args_into_dataclasses)$/.test(file.calleeName(c)?.replace(`${parser}.`, '') ?? ''),
  );
  // The targets before the `=`, written bare (`a, b, c = ...`) or as a parenthesised tuple.
  const assign = parse?.parent?.name === 'AssignStatement' ? parse.parent : undefined;
  const op = assign?.getChild('AssignOp');
  const lhs = assign && op ? children(assign).filter((n) => n.to <= op.from) : [];
  const flat = lhs.flatMap((n) => (n.name === 'TupleExpression' ? children(n) : [n]));
  const names = flat.filter((n) => n.name === 'VariableName');
  const bound = names.length === classes.length ? names[at] : undefined;
  if (!bound) return false;
  const name = file.text.slice(bound.from, bound.to);
  const reads = readsOf(file, name, bound);
  return reads.length > 0 && reads.every((n) => nameRead(file, n));
}

/** A read of a name's model-name attribute (`model_cfg.model_name_or_path`). */
function nameRead(file: PythonFile, n: SyntaxNode): boolean {
  const member = n.parent;
  const property = member?.name === 'MemberExpression' && member.firstChild?.from === n.from ? member.lastChild : null;
  return property !== null && NAME_READS.has(file.text.slice(property.from, property.to));
}

/** What a script may read of a ModelConfig without handing its loading settings on: the model's name and revision. */
const NAME_READS = new Set(['model_name_or_path', 'model_revision', 'trust_remote_code']);

/**
 * Whether a ModelConfig's value is bound to a name the script reads only for the model's name (never passed whole,
 * never its other fields); said at the call when it is, where the call sets more than the name.
 */
function onlyModelNameRead(file: PythonFile, call: SyntaxNode): boolean {
  const bound = readsOfBoundName(file, call);
  if (!bound) return false;
  const { name, reads } = bound;
  const settings = file.args(call).entries.filter((e) => !NAME_READS.has(e.rawKey));
  // Never read at all: a snippet's config or one handed on out of sight; kept as written.
  if (reads.length === 0 || !reads.every((n) => nameRead(file, n)) || settings.length === 0) return false;
  file.problem(
    'no-effect',
    'info',
    msg(
      '{0} is made as {1}, of which the script reads only the model name: its {2} do not apply (a TRL trainer given a ' +
        "model id loads it with its args' model_init_kwargs)",
      'ModelConfig(...)',
      name,
      settings.map((e) => e.rawKey).join(', '),
    ),
    span(call.firstChild!),
    'ModelConfig',
  );
  return true;
}

/**
 * Whether the call's value is bound to a name that no code of the script reads where it runs; said at the call when it
 * is. A read on a branch known not to run is none: `quantization_config=bnb_config if args.quantization else None`
 * with the option off (store_true, not on the launch line), or an `if args.use_lora:` block with use_lora False.
 */
function unusedConfig(file: PythonFile, call: SyntaxNode): boolean {
  const bound = readsOfBoundName(file, call);
  if (!bound) return false;
  // A config made on a branch that does not run is not made at all; one that is made counts where a read runs.
  const runs = (n: SyntaxNode): boolean => sideTaken(file, n) !== false && branchTaken(file, n) !== false;
  if (bound.reads.length > 0 && (!runs(call) || bound.reads.some(runs))) return false;
  const { name, reads } = bound;
  const callee = file.text.slice(call.firstChild!.from, call.firstChild!.to);
  const quantization = /BitsAndBytesConfig$/.test(callee);
  const made = `${callee}(...)`;
  const message =
    reads.length === 0
      ? quantization
        ? msg('{0} is made as {1}, which nothing in the script reads: the model is not quantized with it', made, name)
        : msg('{0} is made as {1}, which nothing in the script reads: no adapter is applied with it', made, name)
      : quantization
        ? msg(
            '{0} is made as {1}, which the script reads only on branches that do not run: the model is not quantized with it',
            made,
            name,
          )
        : msg(
            '{0} is made as {1}, which the script reads only on branches that do not run: no adapter is applied with it',
            made,
            name,
          );
  file.problem('no-effect', 'info', message, span(call.firstChild!), callee);
  return true;
}

/**
 * The name a script binds the call's value to, and every place the script reads that name (its assignment left out);
 * undefined in a module the script imports, or where the value is bound to no plain name.
 */
function readsOfBoundName(file: PythonFile, call: SyntaxNode): { name: string; reads: SyntaxNode[] } | undefined {
  if (file.imported) return undefined;
  const name = assignedName(call, file.text);
  const target = call.parent?.firstChild;
  if (name === undefined || !target) return undefined;
  return { name, reads: readsOf(file, name, target) };
}

/** Every use of a name in the file but its binding target. */
function readsOf(file: PythonFile, name: string, target: SyntaxNode): SyntaxNode[] {
  const reads: SyntaxNode[] = [];
  file.root.cursor().iterate((n) => {
    if (n.name === 'VariableName' && n.from !== target.from && file.text.slice(n.from, n.to) === name)
      reads.push(n.node);
  });
  return reads;
}

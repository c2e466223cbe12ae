// ms-swift's argument files (`swift sft args.yaml` in 4.x, `--config args.yaml` in 3.x; YAML or JSON): their keys are
// swift's options, read as the command line's are (shell/swift.ts swiftOptFacts), with swift's defaults for those the
// file leaves out. The subcommand is rlhf where the file names an rlhf_type, else sft; the world size is the
// launcher's. Pure: no I/O.
import type { ConfigFacts } from '../facts';
import { Launch } from '../shell/launch';
import { swiftOptFacts } from '../shell/swift';
import { YamlCtx, guarded } from './common';
import { yamlOptions } from './as-options';

/** Keys only ms-swift's arguments have (swift/llm/argument, 3.x and 4.x). */
const SWIFT_ONLY = [
  'tuner_type',
  'train_type',
  'model_author',
  'split_dataset_ratio',
  'attn_impl',
  'rlhf_type',
  'quant_bits',
  'dataset_num_proc',
  'lazy_tokenize',
  'padding_free',
];

/** Whether top-level keys are an ms-swift argument file's: `model` as a checkpoint name and swift's own keys. */
export function isSwiftArgsFile(keys: ReadonlySet<string>, scalarModel: boolean): boolean {
  return scalarModel && SWIFT_ONLY.filter((k) => keys.has(k)).length >= 1 && !keys.has('model_name_or_path');
}

export function analyzeSwiftArgsFile(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'swift-yaml', tool: 'ms-swift', omegaconf: false });
  return guarded(ctx, () => {
    const top = ctx.top();
    const opts = yamlOptions(ctx, top);
    const l = new Launch(ctx.text);
    const sub = top.has('rlhf_type') ? 'rlhf' : 'sft';
    swiftOptFacts(
      l,
      opts,
      { span: { start: 0, end: 0 }, sub, defaults: true },
      () => 'the process count of the launcher is not known from this file',
    );
    for (const f of l.r.facts) ctx.facts.push(f);
    for (const p of l.r.problems) ctx.problems.push(p);
    for (const r of l.r.refs) ctx.references.push(r);
    ctx.setTool('ms-swift');
  });
}

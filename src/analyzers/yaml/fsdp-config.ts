// The file TrainingArguments' fsdp_config names (`--fsdp_config config/fsdp_config.json`, linkedin/Liger-Kernel's
// examples/huggingface/run_llama.sh; `fsdp_config="fsdp.json"` in a script): a JSON (or YAML) object of FSDP's options
// for the HF Trainer, read as the inline fsdp_config is (hf-yaml.ts fsdpConfigKeys): `activation_checkpointing` wraps
// each layer in FSDP's checkpoint_wrapper, `backward_prefetch`, `use_orig_params`, `cpu_ram_efficient_loading`, each
// with or without the `fsdp_` prefix transformers strips (training_args.py). Nothing in its text alone says it is one:
// it is read where a run names it. Pure; never throws on user text.
import type { ConfigFacts } from '../facts';
import { YamlCtx, guarded } from './common';
import { fsdpConfigKeys } from './hf-yaml';

export function analyzeFsdpConfigJson(text: string): ConfigFacts {
  const ctx = new YamlCtx(text, { format: 'fsdp-config-json', tool: 'hf-trainer', omegaconf: false });
  return guarded(ctx, () => fsdpConfigKeys(ctx, ctx.top()));
}

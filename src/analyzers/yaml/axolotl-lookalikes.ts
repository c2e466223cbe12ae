// Keys an Axolotl YAML may carry from other tools' vocabularies (`use_gradient_checkpointing: true`, TRL's and PEFT's
// scripts' names) that Axolotl's config does not have: its pydantic schema ignores keys it does not declare
// (axolotl-ai-cloud/axolotl src/axolotl/utils/schemas/config.py, model_config without `extra`), so the setting has no
// effect. Said at the key, with the Axolotl key that does it. Pure: no I/O.
import { msg } from '../facts';
import type { YamlCtx } from './common';
import type { Entry } from './values';

/** Look-alike key -> the Axolotl key for the same setting. */
const AXOLOTL_KEY_FOR: Readonly<Record<string, string>> = {
  use_gradient_checkpointing: 'gradient_checkpointing',
  use_flash_attention: 'flash_attention',
  use_flash_attention_2: 'flash_attention',
  flash_attn: 'flash_attention',
  use_peft: 'adapter',
  lora_rank: 'lora_r',
  lora_target_module: 'lora_target_modules',
  target_modules: 'lora_target_modules',
  max_seq_length: 'sequence_len',
  max_seq_len: 'sequence_len',
  per_device_train_batch_size: 'micro_batch_size',
  model_name_or_path: 'base_model',
  model_name: 'base_model',
  bnb_4bit_quant_type: 'bnb_config_kwargs',
  bnb_4bit_use_double_quant: 'bnb_config_kwargs',
};

/** A warning at each top-level key of the file that Axolotl does not read but another tool's config would. */
export function lookalikeKeys(ctx: YamlCtx, top: ReadonlyMap<string, Entry>): void {
  for (const [key, entry] of top) {
    const axolotl = Object.hasOwn(AXOLOTL_KEY_FOR, key) ? AXOLOTL_KEY_FOR[key] : undefined;
    if (!axolotl || top.has(axolotl)) continue;
    ctx.problem(
      'unknown-key',
      'warning',
      msg('`{0}` is not an Axolotl key, so it has no effect; Axolotl reads `{1}`', key, axolotl),
      entry.keySpan,
      key,
    );
  }
}

// A PEFT config written as a mapping, the way PEFT's get_peft_config(config_dict) and `getattr(peft,
// f"{peft_type}Config")(**d)` read it: `peft_type` LORA with LoraConfig's fields (r, lora_alpha, lora_dropout,
// target_modules, use_dora). THUDM's GLM fine-tuning configs and ArcticTraining's model.peft_config write it so. Pure.
import { msg } from '../facts';
import type { YamlCtx } from './common';
import { asBool, asPosInt, listOf, numOf, strOf, type Entry } from './values';

/** LORA's fields as facts; another peft_type is said at its value as not modeled (the model then trains in full). */
export function peftConfigMapping(ctx: YamlCtx, p: ReadonlyMap<string, Entry>): void {
  const type = p.get('peft_type');
  if (!type) return;
  const kind = strOf(ctx.view(type))?.trim().toUpperCase();
  if (kind !== 'LORA') {
    ctx.problem(
      'not-modeled',
      'warning',
      msg(
        '{0}: this PEFT method is not modeled; unless a method is set elsewhere the model is estimated as fully fine-tuned, far above what it needs',
        `${type.path} ${kind ?? '?'}`,
      ),
      type.valueSpan,
      type.path,
    );
    return;
  }
  ctx.add('method', type, 'lora');
  ctx.put('loraR', p.get('r'), asPosInt);
  ctx.put('loraAlpha', p.get('lora_alpha'), (v) => numOf(v));
  ctx.put('loraDropout', p.get('lora_dropout'), (v) => numOf(v));
  ctx.put('loraTargets', p.get('target_modules'), (v) => listOf(v) ?? undefined);
  ctx.put('loraDora', p.get('use_dora'), asBool);
}

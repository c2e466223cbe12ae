// LitGPT's LoRA names roles, not modules (litgpt/lora.py: to_query, to_key, to_value, to_projection, to_mlp, to_head),
// and adapts whichever layer of a model plays the role. Its models fuse the query, key and value into one layer, so
// in Hugging Face names the query is Falcon's and GPT-NeoX's `query_key_value`, Phi-3's `qkv_proj`, ...; the
// attention's output projection is `dense` in Falcon, GPT-NeoX and Phi; Phi-3's MLP fuses gate and up. Pure data.
// Docs: docs/formats.md (LitGPT YAML)
import type { LinearModule } from './types';

const QKV_FUSED = ['query_key_value', 'qkv_proj', 'Wqkv', 'W_pack', 'c_attn'];

/** The other Hugging Face names of the layer that plays a role LitGPT names the Llama way. */
export const LITGPT_ROLE_NAMES: Readonly<Record<string, readonly string[]>> = {
  q_proj: QKV_FUSED,
  k_proj: QKV_FUSED,
  v_proj: QKV_FUSED,
  o_proj: ['dense', 'out_proj'],
  gate_proj: ['gate_up_proj'],
  up_proj: ['gate_up_proj'],
};

/**
 * A target list as LitGPT's model code reads it: a name the model has stays, a role name it lacks becomes the model's
 * own names for that role (the layer that plays it), and a role no layer plays is dropped.
 */
export function litgptRoleTargets(names: readonly string[], mods: readonly LinearModule[]): string[] {
  const has = (t: string): boolean => mods.some((m) => !m.parameter && m.name.split('.').pop() === t);
  return [...new Set(names.flatMap((t) => (has(t) ? [t] : (LITGPT_ROLE_NAMES[t] ?? []).filter(has))))];
}

/**
 * The parts of a fused q/k/v layer a LitGPT target list adapts (its lora_query / lora_key / lora_value as q_proj /
 * k_proj / v_proj), where the model has no separate q, k and v layers but fuses them (Falcon's and GPT-NeoX's
 * query_key_value, Phi-3's qkv_proj) and not all three are switched on; undefined otherwise (every part, or no such
 * fusion).
 */
export function litgptQkvParts(
  names: readonly string[],
  mods: readonly LinearModule[],
): Array<'q' | 'k' | 'v'> | undefined {
  const has = (t: string): boolean => mods.some((m) => !m.parameter && m.name.split('.').pop() === t);
  const parts = (['q', 'k', 'v'] as const).filter((part) => names.includes(`${part}_proj`));
  if (parts.length === 0 || parts.length === 3 || parts.some((part) => has(`${part}_proj`))) return undefined;
  return QKV_FUSED.some(has) ? parts : undefined;
}

/**
 * The parts of a fused q/k/v layer a LitGPT LoRA adapts, as its setup says them (lora.qkv_parts, from LitGPT's files) or
 * as its role list names them (q_proj, v_proj): undefined for every part, or where nothing is fused.
 */
export function litgptAdaptedParts(
  lora: {
    readonly qkv_parts?: ReadonlyArray<'q' | 'k' | 'v'>;
    readonly target_modules: readonly string[] | 'all-linear';
  },
  mods: readonly LinearModule[],
): ReadonlyArray<'q' | 'k' | 'v'> | undefined {
  return (
    lora.qkv_parts ?? (lora.target_modules === 'all-linear' ? undefined : litgptQkvParts(lora.target_modules, mods))
  );
}

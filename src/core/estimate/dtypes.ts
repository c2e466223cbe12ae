// Bytes per element of each kind of tensor, and the attention implementation that runs. Pure.
import type { Architecture } from '../architecture';
import type { Attention } from '../setup';
import { DTYPE_BYTES } from '../units';

/**
 * Families whose attention transformers runs in eager code for the implementations listed: gpt-oss has no SDPA path
 * (GptOssPreTrainedModel._supports_sdpa = False: its attention sinks need eager attention or a kernel that takes them);
 * BLOOM adds its ALiBi bias by baddbmm in eager code only (no SDPA or FlashAttention path).
 */
export const EAGER_ONLY_ATTENTION: Partial<Record<Architecture['family'], { readonly replaces: readonly Attention[]; readonly why: string }>> = {
  gpt_oss: { replaces: ['sdpa'], why: 'transformers has no SDPA path for gpt-oss (attention sinks): eager attention is used; a flash kernel that takes the sinks is attention: flash' },
  bloom: { replaces: ['sdpa', 'flash'], why: 'transformers runs BLOOM\'s ALiBi attention in eager code only (no SDPA or FlashAttention path): eager attention is used' },
};

export const dtypeBytes = (d: 'fp32' | 'bf16' | 'fp16'): number => DTYPE_BYTES[d];

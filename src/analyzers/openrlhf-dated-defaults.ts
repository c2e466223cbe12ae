// OpenRLHF's defaults as the release the project pins or keeps a copy of had them (setup.openrlhf_version): before
// 0.8.10 (OpenRLHF/OpenRLHF@c250c21a, 2025-08) the model loaded with flash attention only under the flat CLI's
// `--flash_attn` switch, off by default, and with eager attention without it (models/actor.py
// `attn_implementation="flash_attention_2" if use_flash_attention_2 else "eager"`). A rule the pipeline applies
// after the pins (pinned-versions.ts). Pure.
import { olderThan, type ProvenanceMap, type TrainingSetup } from '../core';

/** The setup with the attention OpenRLHF's pinned release defaulted to, where its current default decided it. */
export function openrlhfAttentionOfRelease(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
): TrainingSetup {
  const version = setup.openrlhf_version;
  const p = provenance.attention;
  if (!version || !olderThan(version, 0, 8, 10) || p?.kind !== 'default' || p.owner !== 'openrlhf') return setup;
  provenance.attention = {
    kind: 'default',
    owner: 'openrlhf',
    note:
      `OpenRLHF ${version} loads the model with eager attention unless --flash_attn is given (off by default before ` +
      '0.8.10, OpenRLHF/OpenRLHF@c250c21a models/actor.py)',
  };
  return { ...setup, attention: 'eager' };
}

// The vramLens.* settings as a zod schema: the single source of their defaults (package.json repeats them and a
// unit test checks that both agree) and the conversion to the analysis settings. Editor-free.
import { z } from 'zod';
import { PYTORCH_VERSION } from '../core';
import type { AnalysisSettings } from './analysis';

export const SettingsSchema = z.object({
  gpu: z.string().default(''),
  gpusPerNode: z.number().int().min(0).default(0),
  nodes: z.number().int().min(0).default(0),
  model: z.string().default(''),
  headroomPercent: z.number().min(0).max(50).default(5),
  cudaContextGiB: z.number().min(0).max(8).default(0.75),
  /** PyTorch version of the training environment ("" = a current release). */
  pytorchVersion: z
    .string()
    .refine((v) => v === '' || PYTORCH_VERSION.test(v))
    .default(''),
  /** transformers version of the training environment ("" = a current release, 5.x). */
  transformersVersion: z
    .string()
    .refine((v) => v === '' || PYTORCH_VERSION.test(v))
    .default(''),
  allowNetwork: z.boolean().default(false),
  'diagnostics.enabled': z.boolean().default(true),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SETTING_KEYS = Object.keys(SettingsSchema.shape) as Array<keyof Settings>;

/** Parses raw setting values; each invalid value falls back to its default and is reported through `warn`. */
export function parseSettings(raw: Record<string, unknown>, warn: (key: string, value: unknown) => void): Settings {
  const out: Record<string, unknown> = {};
  for (const k of SETTING_KEYS) {
    if (raw[k] === undefined) continue;
    const one = SettingsSchema.shape[k].safeParse(raw[k]);
    if (one.success) out[k] = one.data;
    else warn(k, raw[k]);
  }
  return SettingsSchema.parse(out);
}

export function toAnalysisSettings(s: Settings): AnalysisSettings {
  return {
    gpu: s.gpu,
    gpusPerNode: s.gpusPerNode > 0 ? s.gpusPerNode : undefined,
    nodes: s.nodes > 0 ? s.nodes : undefined,
    model: s.model || undefined,
    headroomPercent: s.headroomPercent,
    cudaContextGiB: s.cudaContextGiB,
    pytorchVersion: s.pytorchVersion || undefined,
    transformersVersion: s.transformersVersion || undefined,
  };
}

// A transformers release older than the model: a pin from a dependency file that belongs to other code of the
// repository (a fork's root requirements.txt, `transformers>=4.32,<4.38`, beside a Qwen2.5-VL fine-tune), or one a later
// install replaced (Axolotl's `transformers==4.56.1` beside a 4.57 development commit for Qwen3-Next), cannot run the
// model, whose code came with a later release. Such a pin is not the run's, but it dates the project before that
// release's successors: the estimate takes the first release with the model's code and says why. Pure; no I/O.
import type { TrainingSetup } from '../setup';
import type { Warning } from '../model';
import { olderThan } from '../util/version';

/**
 * The first transformers release with each model type's code (the release notes of huggingface/transformers: the
 * models each minor release added).
 */
const FIRST_RELEASE: Readonly<Record<string, readonly [number, number]>> = {
  mistral: [4, 34],
  mixtral: [4, 36],
  qwen2: [4, 37],
  gemma: [4, 38],
  cohere: [4, 39],
  starcoder2: [4, 39],
  qwen2_moe: [4, 40],
  phi3: [4, 40],
  jamba: [4, 40],
  dbrx: [4, 40],
  olmo: [4, 40],
  gemma2: [4, 42],
  qwen2_vl: [4, 45],
  mllama: [4, 45],
  granite: [4, 45],
  olmo2: [4, 47],
  qwen2_5_vl: [4, 49],
  gemma3: [4, 50],
  qwen3: [4, 51],
  qwen3_moe: [4, 51],
  llama4: [4, 51],
  gpt_oss: [4, 55],
  qwen3_vl: [4, 57],
  qwen3_vl_moe: [4, 57],
  qwen3_next: [4, 57],
};

/**
 * A transformers release older than a model type's code: why it cannot run it, and the first release that can ("4.49"),
 * which stands in; undefined where the release has the code (or the type's first release is not known).
 */
export function releasePredatesModel(
  version: string,
  modelType: unknown,
): { why: string; firstRelease: string } | undefined {
  const first = typeof modelType === 'string' ? FIRST_RELEASE[modelType] : undefined;
  if (!first || !olderThan(version, first[0], first[1])) return undefined;
  const firstRelease = first.join('.');
  return {
    why:
      `transformers ${version} predates ${modelType}, whose code came with transformers ${firstRelease}: the run ` +
      `cannot use that release, and is estimated with ${firstRelease}, the first that has it`,
    firstRelease,
  };
}

/**
 * The setup with the first release of its model's code in place of an older transformers release, with the warning
 * that says so; the setup as given otherwise.
 */
export function releaseBeforeModel(setup: TrainingSetup): { setup: TrainingSetup; warning?: Warning } {
  const version = setup.transformers_version;
  const older = version === undefined ? undefined : releasePredatesModel(version, setup.architecture?.model_type);
  if (!older) return { setup };
  return {
    setup: { ...setup, transformers_version: older.firstRelease },
    warning: { key: 'transformers_version', message: older.why },
  };
}

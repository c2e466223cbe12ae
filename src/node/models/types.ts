// The types of model resolution: what a resolved model carries and the options a look-up takes.
import type { QuantizationInfo } from '../../analyzers/checkpoint-quantization';
import type { ResolvedModel } from '../../analyzers/resolve';

/** Environment variables as read from process.env; tests pass their own object so nothing touches the real home. */
export type Env = Readonly<Record<string, string | undefined>>;

export type { QuantizationInfo };

/** A resolved model with what we learned on the way; assignable to the ResolvedModel that resolveScenarios takes. */
export interface ModelInfo extends ResolvedModel {
  /** Which files the parameter count was read from, when it was counted from safetensors headers. */
  readonly parameterSource?: string;
  /** Parameters per safetensors dtype; packed quantized tensors are counted unpacked under their container dtype. */
  readonly dtypes?: Readonly<Record<string, number>>;
  /** The floating-point dtype that holds most of the parameters, in TrainingSetup words. */
  readonly weightsDtype?: 'fp32' | 'bf16' | 'fp16';
  /** Quantization of the stored checkpoint, recognised from quantization_config. */
  readonly quantization?: QuantizationInfo;
  /** The commit (HF cache) or revision (Hub) the files came from. */
  readonly revision?: string;
  /** Remarks worth showing the user: skipped counts, missing shards, quantization methods we do not model. */
  readonly notes: readonly string[];
}

export type ModelResolution =
  { readonly ok: true; readonly model: ModelInfo } | { readonly ok: false; readonly message: string };

export interface SyncResolveOptions {
  /** Directory that relative paths are resolved against. */
  readonly cwd: string;
  readonly env: Env;
  readonly allowNetwork?: false;
  /** Our cache of earlier Hub look-ups; defaults to $XDG_CACHE_HOME/vram-lens/hub, else ~/.cache/vram-lens/hub. */
  readonly cacheDir?: string;
  /** How a message tells the user to allow network access, such as '--allow-network' or a setting name. */
  readonly networkHint?: string;
  /**
   * When set (an untrusted workspace), local model paths are read only under these folders; the Hugging Face cache and
   * our own cache are always allowed.
   */
  readonly roots?: readonly string[];
  /**
   * The file that names the model: a relative model path not found from cwd is looked for from this file's folder and
   * the folders above it, up to cwd or the repository's top (a launcher in `scripts/` of a project run from its folder).
   */
  readonly from?: string;
}

export interface AsyncResolveOptions extends Omit<SyncResolveOptions, 'allowNetwork'> {
  /** Without this, no request ever leaves the machine. */
  readonly allowNetwork: boolean;
  /** Budget for all Hub requests of one resolution, in milliseconds (default 10 000). */
  readonly timeoutMs?: number;
  /** Defaults to $HF_ENDPOINT, else https://huggingface.co. */
  readonly hubUrl?: string;
  /** Defaults to HF_TOKEN, HUGGING_FACE_HUB_TOKEN, then the saved token file. */
  readonly token?: string;
  /** The fetch to use (tests pass a spy); requests get our timeout signal added. */
  readonly fetch?: typeof fetch;
}

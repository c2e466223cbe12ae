// Step-time model, from first principles, used to rank advice by what it costs: compute FLOPs (Kaplan et al.
// 2020 / Narayanan et al. 2021: 6 x params x tokens for training, 2 for the forward pass), attention FLOPs,
// recomputation under checkpointing, offload traffic over the host link, ZeRO-3/FSDP all-gathers over the
// peer link, and small-matrix inefficiency. Every result carries its arithmetic. Pure; no I/O.
import { type Architecture, attentionLayerCount, countParameters, parseArchitecture } from './architecture';
import type { GpuSpec } from './catalog/gpus';
import {
  defersGradientSync,
  forwardsPerExample,
  fsdpAccumulates,
  generationBatch,
  sequencesPerExample,
  type TrainingSetup,
} from './setup';

/** Share of peak tensor throughput a well-tuned training step reaches (model FLOPs utilisation). */
export const ASSUMED_MFU = 0.4;
/** Tokens per micro-batch at which matmul efficiency is half of its large-batch value (see tokenEfficiency). */
export const HALF_EFFICIENCY_TOKENS = 256;
/** Host-side AdamW throughput of DeepSpeed CPUAdam, parameters per second per GPU rank (AVX2/AVX-512, one socket share). */
export const CPU_ADAM_PARAMS_PER_S = 1.0e9;

export interface StepTime {
  /** Seconds per optimizer step (all micro-steps of one GPU). */
  readonly seconds: number;
  readonly computeSeconds: number;
  readonly communicationSeconds: number;
  readonly offloadSeconds: number;
  /** The arithmetic, line by line, for "Show formula". */
  readonly explain: readonly string[];
}

const DEFAULT_GPU: Pick<GpuSpec, 'denseTflops' | 'hostLink' | 'peerLink' | 'hbmBandwidthGBps'> = {
  hbmBandwidthGBps: 2039,
  denseTflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
  hostLink: { kind: 'pcie', gen: 4, lanes: 16, GBps: 25 },
  peerLink: { kind: 'nvlink', GBps: 600 },
};

/**
 * Matmul efficiency for a micro-batch of T tokens: T / (T + T_half). Small micro-batches leave tensor cores
 * idle because the matrices are thin (arithmetic intensity grows with T until compute-bound).
 */
export function tokenEfficiency(tokens: number): number {
  return tokens / (tokens + HALF_EFFICIENCY_TOKENS);
}

type StepGpu = Pick<GpuSpec, 'denseTflops' | 'hostLink' | 'peerLink' | 'hbmBandwidthGBps'>;

/** What every part of the step time reads: the setup, its model, the GPU and the step's shape. */
interface StepTimeContext {
  readonly setup: TrainingSetup;
  readonly arch: Architecture;
  readonly gpu: StepGpu;
  /** All parameters, and those one token runs through (MoE: the top-k experts). */
  readonly params: number;
  readonly activeParams: number;
  /** Tensor x pipeline parallel ranks the model is split over. */
  readonly modelSplit: number;
  readonly microSteps: number;
  /** Tokens per GPU and micro-step. */
  readonly tokens: number;
  /** Forward FLOPs per token, and the peak FLOP/s of the step's dtype. */
  readonly forwardFlops: number;
  readonly peakFlops: number;
  readonly lean: boolean;
  readonly explain: string[];
}

/**
 * Seconds per optimizer step on one GPU.
 * @param trainableParams trainable parameters (from the estimate), for gradient traffic.
 * @param pagedToHostBytes paged optimizer state that does not fit beside the rest on the GPU (the estimate's
 *   perGpu.pagedToHostBytes); it is paged in for each parameter's update and out again.
 */
export function stepTime(
  setup: TrainingSetup,
  trainableParams: number,
  gpu?: StepGpu,
  lean = false,
  pagedToHostBytes = 0,
): StepTime {
  const parsed = parseArchitecture(setup.architecture);
  if (!parsed.ok)
    return {
      seconds: NaN,
      computeSeconds: NaN,
      communicationSeconds: 0,
      offloadSeconds: 0,
      explain: ['architecture incomplete'],
    };
  const ctx = stepContext(setup, parsed.arch, gpu ?? DEFAULT_GPU, lean);
  const compute = computeSeconds(ctx);
  const dequant = dequantSeconds(ctx);
  const generation = generationSeconds(ctx);
  const comm = communicationSeconds(ctx, trainableParams);
  const offload = offloadSeconds(ctx, trainableParams, pagedToHostBytes);
  // Communication overlaps with backward compute; only the excess shows up.
  const exposedComm = Math.max(0, comm - 0.5 * compute);
  const seconds = compute + dequant + exposedComm + offload + generation;
  if (!lean)
    ctx.explain.push(`step: ${(seconds * 1e3).toFixed(1)} ms (communication beyond half the compute time is exposed)`);
  return {
    seconds,
    computeSeconds: compute + dequant + generation,
    communicationSeconds: exposedComm,
    offloadSeconds: offload,
    explain: ctx.explain,
  };
}

/**
 * Seconds one decoder layer's forward takes on the GPU for one micro-batch: its share of the forward FLOPs per token
 * (the blocks' 2·P, the active experts only, and the attention; not the embedding's or the output head's) times the
 * micro-batch's tokens, over the dtype's peak at ASSUMED_MFU and the micro-batch's efficiency (tokenEfficiency).
 */
export function layerForwardSeconds(
  setup: TrainingSetup,
  a: Architecture,
  gpu: StepGpu,
): { seconds: number; formula: () => string } {
  const ctx = stepContext(setup, a, gpu, true);
  const count = countParameters(a);
  const blocksActive = count.blocks - (ctx.params - ctx.activeParams);
  const perToken = (ctx.forwardFlops - 2 * ctx.activeParams + 2 * blocksActive) / a.layers;
  const eff = tokenEfficiency(ctx.tokens);
  const seconds = (perToken * ctx.tokens) / setup.tensor_parallel / (ctx.peakFlops * ASSUMED_MFU * eff);
  return {
    seconds,
    formula: () =>
      `${fmt(perToken)} FLOPs/token x ${ctx.tokens} tokens / (${(ctx.peakFlops / 1e12).toFixed(0)} TFLOPS x ` +
      `${ASSUMED_MFU} MFU x ${eff.toFixed(2)} small-batch efficiency) = ${(seconds * 1e3).toFixed(1)} ms`,
  };
}

/** The step's shape: parameters run per token, tokens, forward FLOPs per token and the GPU's peak for the dtype. */
function stepContext(setup: TrainingSetup, a: Architecture, g: StepGpu, lean: boolean): StepTimeContext {
  const P = setup.parameters ?? countParameters(a).total;
  // MoE: only top-k experts run per token (transformers' Llama 4 runs every expert on every token).
  const activeP =
    a.moe && a.family !== 'llama4'
      ? P - (a.moe.experts - a.moe.topK) * 3 * a.hidden * a.moe.expertFfn * a.moe.moeLayers
      : P;
  // Tokens per GPU: context-parallel ranks split each sequence (each local query still attends to the whole sequence).
  const T =
    (setup.micro_batch_size * sequencesPerExample(setup) * forwardsPerExample(setup) * setup.seq_len) /
    setup.context_parallel;
  // FLOPs per token: forward 2P + attention 4·L·s·h (QK^T and AV, causal counted in full as kernels do). Gated DeltaNet
  // layers (chunk size 64) cost per token and value head about 4·64·(dk + dv) within the chunk and 6·dk·dv against
  // the state, independent of the sequence length.
  // Mamba2 layers (chunk C, state N, head width P) likewise: about 4·C·(N + P) + 6·N·P per token and head.
  const la = a.linearAttention;
  const mb = a.mamba;
  // Mamba-1's selective scan: about 9 operations per channel and state element per token (discretization, state update,
  // output), beside its linears.
  const m1 = a.mamba1;
  const attnFwd =
    4 * attentionLayerCount(a) * setup.seq_len * a.heads * a.headDim +
    (la ? la.layers * la.valueHeads * (4 * 64 * (la.keyDim + la.valueDim) + 6 * la.keyDim * la.valueDim) : 0) +
    (mb ? mb.layers * mb.heads * (4 * mb.chunk * (mb.state + mb.headDim) + 6 * mb.state * mb.headDim) : 0) +
    (m1 ? m1.layers * 9 * m1.inner * m1.state : 0);
  const dtype = setup.mixed_precision !== 'none' ? setup.mixed_precision : setup.weights_dtype;
  const peak =
    (dtype === 'fp32'
      ? (g.denseTflops.tf32 ?? g.denseTflops.fp32)
      : dtype === 'bf16'
        ? (g.denseTflops.bf16 ?? g.denseTflops.fp16)
        : g.denseTflops.fp16) * 1e12;
  return {
    setup,
    arch: a,
    gpu: g,
    params: P,
    activeParams: activeP,
    modelSplit: setup.tensor_parallel * setup.pipeline_parallel,
    microSteps: setup.gradient_accumulation_steps,
    tokens: T,
    forwardFlops: 2 * activeP + attnFwd,
    peakFlops: peak,
    lean,
    explain: [],
  };
}

/** Forward, backward, recomputation and the no-grad forwards (reference, KL) of every micro-step. */
function computeSeconds(ctx: StepTimeContext): number {
  const { setup, arch: a, forwardFlops: fwd, tokens: T, microSteps, peakFlops: peak } = ctx;
  // Paired preference training runs chosen and rejected together, and the reference model's forward besides; KTO runs
  // the reference on the completions and on the KL batch, and the policy on the KL batch without grad.
  const pref = setup.preference;
  const refActive = pref !== undefined && (pref.reference === 'copy' || pref.reference === 'adapters-off');
  // GRPO scores its completions without grad: the reference (beta > 0) and the old policy's log-probabilities.
  const ro = setup.rollout;
  const extraForwards = ro
    ? (ro.reference !== 'none' ? 1 : 0) + (ro.old_logps ? 1 : 0)
    : !pref
      ? 0
      : pref.paired
        ? refActive
          ? 1
          : 0
        : (refActive ? 2 : 0) + 1;
  const peft = setup.method === 'lora' || setup.method === 'qlora' || setup.method === 'ia3';
  // Backward: activation gradients (= forward) + weight gradients (= forward) for trainable weights only.
  const bwd = peft || setup.method === 'freeze' ? fwd : 2 * fwd;
  // A tiled MLP runs each dense MLP's forward once more in backward (per shard).
  const tiledMlp = setup.tiled_mlp !== false && !a.moe ? 2 * (a.gatedMlp ? 3 : 2) * a.hidden * a.ffn * a.layers : 0;
  const recompute =
    (setup.gradient_checkpointing === 'full' ? fwd : setup.gradient_checkpointing === 'selective' ? 0.3 * fwd : 0) +
    tiledMlp;
  const flopsPerToken = fwd + bwd + recompute + extraForwards * fwd;
  const eff = tokenEfficiency(T);
  const seconds = (flopsPerToken * T * microSteps) / ctx.modelSplit / (peak * ASSUMED_MFU * eff);
  if (!ctx.lean) {
    const recomputeText = recompute ? ` + recompute ${fmt(recompute)}` : '';
    const extraForwardsText = extraForwards
      ? ` + ${extraForwards} no-grad forward${extraForwards > 1 ? 's' : ''} (reference / KL) ${fmt(extraForwards * fwd)}`
      : '';
    ctx.explain.push(
      `compute: (forward ${fmt(fwd)} + backward ${fmt(bwd)}${recomputeText}${extraForwardsText}) FLOPs/token ` +
        `x ${T} tokens x ${microSteps} micro-steps / (${(peak / 1e12).toFixed(0)} TFLOPS x ${ASSUMED_MFU} MFU ` +
        `x ${eff.toFixed(2)} small-batch efficiency) = ${(seconds * 1e3).toFixed(1)} ms`,
    );
  }
  return seconds;
}

/**
 * QLoRA dequantizes every 4-bit weight in forward and backward: extra memory traffic (QLoRA paper reports slower steps
 * than LoRA); modeled as the 16-bit weights being materialised twice per micro-step.
 */
function dequantSeconds(ctx: StepTimeContext): number {
  if (ctx.setup.method !== 'qlora') return 0;
  const P = ctx.params;
  const seconds = (2 * P * 2 * ctx.microSteps) / (ctx.gpu.hbmBandwidthGBps * 1e9);
  if (!ctx.lean)
    ctx.explain.push(
      `4-bit dequantization: 2 passes x ${fmt(P)} params x 2 B / HBM bandwidth = ${(seconds * 1e3).toFixed(1)} ms`,
    );
  return seconds;
}

/**
 * Generation (GRPO): decoding is bound by memory bandwidth, each new token reads every weight and the KV cache so far
 * once for the whole batch; the prompts' prefill is a forward pass. Rounds per optimizer step: the step's sequences
 * over the round's.
 */
function generationSeconds(ctx: StepTimeContext): number {
  const { setup, arch: a, gpu: g, activeParams: activeP, microSteps, modelSplit } = ctx;
  const ro = setup.rollout;
  if (!ro) return 0;
  const la = a.linearAttention;
  const mb = a.mamba;
  const wBytes = (setup.weights_dtype === 'fp32' ? 4 : 2) * (setup.method === 'qlora' ? 0.28 : 1);
  const C = ro.completion_len;
  const prompt = setup.seq_len - C;
  // The cache read per token: every layer's keys and values so far (on average prompt + C/2 tokens), a sliding-window
  // layer's up to its window.
  const avg = prompt + C / 2;
  // Gated DeltaNet layers read and write their fp32 state (value heads x dk x dv) instead.
  const kvRead =
    a.kvHeads *
      (a.headDim + (a.mla ? a.mla.vHeadDim : a.headDim)) *
      2 *
      ((attentionLayerCount(a) - a.slidingLayers) * avg + a.slidingLayers * Math.min(avg, a.slidingWindow)) +
    (la ? la.layers * 2 * la.valueHeads * la.keyDim * la.valueDim * 4 : 0) +
    (mb ? mb.layers * 2 * mb.heads * mb.headDim * mb.state * 2 : 0);
  // Online DPO generates two completions per prompt in every micro-step.
  const G = generationBatch(setup);
  const rounds = ro.objective === 'online-dpo' ? microSteps : (setup.micro_batch_size * microSteps) / G;
  const decode = (C * (activeP * wBytes + G * kvRead)) / modelSplit / (g.hbmBandwidthGBps * 1e9);
  const prefill =
    (ctx.forwardFlops * G * prompt) / modelSplit / (ctx.peakFlops * ASSUMED_MFU * tokenEfficiency(G * prompt));
  // vLLM's sleep mode (level 1) moves its weights to the host after each round and back before the next.
  const wake =
    ro.engine === 'vllm-colocate' && ro.vllm_sleep ? (2 * activeP * wBytes) / modelSplit / (g.hostLink.GBps * 1e9) : 0;
  const generation = rounds * (decode + prefill + wake);
  if (!ctx.lean) {
    const wakeText = wake > 0 ? ` + vLLM wake-up: weights to the host and back ${(wake * 1e3).toFixed(1)} ms` : '';
    ctx.explain.push(
      `generation: ${+rounds.toFixed(2)} round(s) x (decode ${C} tokens x (weights ${fmt(activeP * wBytes)} B ` +
        `+ KV cache of ${G} sequences) / ${g.hbmBandwidthGBps} GB/s + prefill ${G} x ${prompt} tokens${wakeText}) ` +
        `= ${(generation * 1e3).toFixed(1)} ms${ro.engine === 'generate' ? '' : ' (vLLM)'}`,
    );
  }
  return generation;
}

/** Gradient all-reduce (and ZeRO-3 / FSDP's parameter all-gathers) over the peer link, per optimizer step. */
function communicationSeconds(ctx: StepTimeContext, trainable: number): number {
  const { setup, gpu: g, params: P, microSteps, modelSplit } = ctx;
  const dp = (setup.gpus_per_node * setup.nodes) / modelSplit;
  if (dp <= 1) return 0;
  const peer = ((g.peerLink?.GBps ?? g.hostLink.GBps) * 1e9) / 2; // one direction
  const gradBytes =
    ((setup.mixed_precision !== 'none' || setup.weights_dtype !== 'fp32' ? 2 : 4) * trainable) / modelSplit;
  const ring = (dp - 1) / dp;
  const sharded = setup.zero_stage === 3 || setup.fsdp === 'full_shard' || setup.fsdp === 'hybrid_shard';
  // All-reduce = reduce-scatter + all-gather of the gradients: 2 x bytes x (N-1)/N; ZeRO-3/FSDP add two
  // parameter all-gathers (forward and backward) per micro-step.
  let comm = (2 * gradBytes * ring) / peer;
  if (sharded) comm += (2 * microSteps * ((2 * P) / modelSplit) * ring) / peer;
  // FSDP without no_sync reduce-scatters every micro-batch's gradients, not only the last one's.
  const eachMicro = fsdpAccumulates(setup) && !defersGradientSync(setup);
  if (eachMicro) comm += ((microSteps - 1) * gradBytes * ring) / peer;
  if (!ctx.lean)
    ctx.explain.push(
      `communication: ${sharded ? 'gradient reduce-scatter + 2 parameter all-gathers per micro-step' : 'gradient all-reduce'} ` +
        (eachMicro ? `(the gradients reduce-scattered in each of ${microSteps} micro-steps) ` : '') +
        `over ${(peer / 1e9).toFixed(0)} GB/s = ${(comm * 1e3).toFixed(1)} ms (overlapped with ` +
        `compute where possible)`,
    );
  return comm;
}

/**
 * Offload: gradients go to the host and updated 16-bit parameters come back over PCIe, CPU Adam runs the step;
 * offloaded parameters are fetched twice per micro-step; paged optimizer state and offloaded activations cross too.
 */
function offloadSeconds(ctx: StepTimeContext, trainable: number, pagedToHostBytes: number): number {
  const { setup, arch: a, gpu: g, params: P, microSteps, modelSplit, lean, explain } = ctx;
  const dp = (setup.gpus_per_node * setup.nodes) / modelSplit;
  let offload = 0;
  const host = g.hostLink.GBps * 1e9;
  const shard = setup.zero_stage > 0 || setup.fsdp !== 'none' ? dp : 1;
  if (setup.offload_optimizer !== 'none') {
    const pShard = trainable / shard / modelSplit;
    offload += (2 * pShard * 2) / host + pShard / CPU_ADAM_PARAMS_PER_S;
    if (!lean)
      explain.push(
        `optimizer offload: ${fmt(pShard)} params x (2 B grads down + 2 B params up) ` +
          `/ ${(host / 1e9).toFixed(0)} GB/s + CPU Adam ${fmt(pShard)} ` +
          `/ ${fmt(CPU_ADAM_PARAMS_PER_S)} params/s = ${(offload * 1e3).toFixed(1)} ms`,
      );
    if (setup.offload_optimizer === 'nvme') offload *= 3;
  }
  // FSDP's one CPU offload moves the sharded parameters too, whichever key asked for it (the memory estimate does the same).
  const paramsOffloaded =
    setup.offload_params !== 'none' || (setup.fsdp !== 'none' && setup.offload_optimizer !== 'none');
  if (paramsOffloaded) {
    const pShard = P / shard / modelSplit;
    const t = (2 * microSteps * pShard * 2) / host;
    offload += setup.offload_params === 'nvme' ? 3 * t : t;
    if (!lean)
      explain.push(
        `parameter offload: 2 fetches per micro-step x ${fmt(pShard)} params x 2 B / ${(host / 1e9).toFixed(0)} GB/s = ${(t * 1e3).toFixed(1)} ms`,
      );
  }
  if (pagedToHostBytes > 0) {
    const t = (2 * pagedToHostBytes) / host;
    offload += t;
    if (!lean)
      explain.push(
        `paged optimizer state: ${fmt(pagedToHostBytes)} B paged in for the update and out again ` +
          `/ ${(host / 1e9).toFixed(0)} GB/s = ${(t * 1e3).toFixed(1)} ms`,
      );
  }
  if (setup.activation_offloading) {
    const t = (2 * a.layers * ctx.tokens * a.hidden * 2 * microSteps) / host;
    offload += t * 0.5; // overlapped with compute on a side stream about half the time
    if (!lean)
      explain.push(
        `activation offloading: layer inputs to the host and back, half overlapped = ${(t * 500).toFixed(1)} ms`,
      );
  }
  return offload;
}

function fmt(n: number): string {
  if (n >= 1e12) return `${(n / 1e12).toFixed(2)}T`;
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return n.toFixed(0);
}

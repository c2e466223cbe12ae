// Every UI string of the panel, in English. The English text is the key of the VS Code l10n bundle:
// the host sends model.strings = { "<English>": "<translation>" } and tr() looks each one up there,
// falling back to English. Placeholders are {0}, {1}, ... as in vscode.l10n.t. Pure (no DOM): the unit
// tests import it to check that l10n/panel.zh-cn.json translates every entry.

export const S = {
  appName: 'VRAM Lens',
  noConfig: 'No training config is open.',
  noConfigHint: 'Open a DeepSpeed, Hugging Face, Accelerate, Axolotl, LLaMA-Factory, torchtune or .vram.yaml file.',
  waiting: 'Waiting for the estimate…',
  formatLabel: 'Format: {0}',
  modelLabel: 'Model: {0}',
  paramsLabel: '{0} parameters, {1} trainable',
  // Summary
  perGpu: 'Per GPU',
  deviceOfCapacity: '{0} of {1} on {2}',
  deviceNoGpu: '{0} on the busiest GPU (no GPU chosen)',
  fits: 'Fits',
  near: 'Tight',
  oom: 'Does not fit',
  unknownFit: 'No GPU to check against',
  headroomLeft: '{0} free',
  headroomOver: '{0} over',
  peakPhase: 'Peak phase: {0}',
  maxMicro: 'Largest micro-batch that fits: {0}',
  maxSeq: 'Longest sequence that fits: {0}',
  gpusNeeded: 'GPUs needed with ZeRO-3: {0}',
  nothingFits: 'none',
  whatIfActive: 'What-if: {0} changed',
  whatIfNote: 'Figures show the what-if setup; the file is unchanged.',
  // Phases
  'phase.forward': 'forward',
  'phase.backward': 'backward',
  'phase.optimizer': 'optimizer step',
  'phase.first-step': 'first step (initialisation)',
  'phase.evaluation': 'evaluation (during training)',
  'phase.generation': 'generation (rollout)',
  phasesHeading: 'Phases',
  // Chart
  breakdownHeading: 'Memory breakdown',
  chartSummary: 'Stacked bar of per-GPU memory: {0}. Allocated {1}, reserved {2}, device {3}, capacity {4}.',
  variableLengths: 'Batches of varying length: over a run the allocator holds about {0} reserved or more ({1} in nvidia-smi), {2} of it in blocks of earlier, shorter batches, more or less depending on the order of lengths. It frees them before running out of memory, so the fit does not count them.',
  'group.weights': 'Weights',
  'group.optimizer': 'Optimizer',
  'group.gradients': 'Gradients',
  'group.activations': 'Activations',
  'group.loss': 'Logits and loss',
  'group.buffers': 'Sharding and communication buffers',
  'group.runtime': 'Runtime (allocator, CUDA context, NCCL)',
  allocated: 'allocated',
  reserved: 'reserved',
  device: 'device',
  capacity: 'capacity',
  group: 'Group',
  size: 'Size',
  share: 'Share',
  component: 'Component',
  formula: 'Formula',
  total: 'Total',
  allComponents: 'All components and formulas',
  // Host memory
  hostHeading: 'Offload',
  hostRam: 'Host RAM per node',
  nvme: 'NVMe per node',
  none: 'none',
  // What-if
  whatIfHeading: 'What if',
  reset: 'Reset to file',
  resetHint: 'Return every control to the values in the file',
  ctlGpu: 'GPU',
  ctlGpus: 'GPUs',
  ctlMicro: 'Micro-batch',
  ctlSeq: 'Sequence length',
  ctlPrecision: 'Precision',
  ctlCheckpointing: 'Checkpointing',
  ctlSharding: 'ZeRO / FSDP',
  ctlOffload: 'Offload',
  ctlOptimizer: 'Optimizer',
  ctlMethod: 'Method',
  asInFile: 'as in file',
  'precision.fp32': 'fp32',
  'precision.amp-bf16': 'fp32 weights + bf16 autocast',
  'precision.amp-fp16': 'fp32 weights + fp16 autocast',
  'precision.bf16': 'pure bf16',
  'precision.bf16-master': 'bf16 + fp32 master weights',
  'precision.fp16-master': 'fp16 + fp32 master weights',
  'checkpointing.none': 'off',
  'checkpointing.full': 'full',
  'checkpointing.selective': 'selective',
  'sharding.none': 'none (DDP)',
  'sharding.zero1': 'ZeRO stage 1',
  'sharding.zero2': 'ZeRO stage 2',
  'sharding.zero3': 'ZeRO stage 3',
  'sharding.fsdp-full_shard': 'FSDP FULL_SHARD',
  'sharding.fsdp-shard_grad_op': 'FSDP SHARD_GRAD_OP',
  'sharding.fsdp-hybrid_shard': 'FSDP HYBRID_SHARD',
  'offload.none': 'none',
  'offload.opt-cpu': 'optimizer to CPU',
  'offload.opt-nvme': 'optimizer to NVMe',
  'offload.all-cpu': 'optimizer and parameters to CPU',
  'offload.all-nvme': 'optimizer and parameters to NVMe',
  'method.full': 'full fine-tuning',
  'method.lora': 'LoRA',
  'method.qlora': 'QLoRA (4-bit)',
  'method.freeze': 'freeze (last layers)',
  'method.ia3': 'IA3 (learned scaling vectors)',
  invalidNumber: 'Enter a whole number from {0} to {1}.',
  estimateError: 'This combination cannot be estimated:',
  // Fit map
  fitMapHeading: 'Fit map',
  fitMapCaption: 'Micro-batch (columns) x sequence length (rows) on {0}',
  fitMapCurrent: 'Current setup',
  fitMapBest: 'With the top advice: {0}',
  fitMapNoGpu: 'Choose a GPU to see the fit map.',
  fitMapComputing: 'Computing…',
  fitMapCell: 'micro-batch {0}, sequence {1}: {2}, {3}',
  fitMapPick: 'Click a cell (or move with the arrow keys and press Enter) to try that micro-batch and sequence length.',
  seqShort: 'seq',
  microShort: 'mb',
  cellFits: 'fits',
  cellNear: 'tight',
  cellOom: 'out of memory',
  cellError: 'cannot estimate',
  // Advice
  adviceHeading: 'Advice',
  adviceNone: 'No change needed: the setup fits.',
  adviceNoneFound: 'No single change or combination of up to three changes makes it fit.',
  adviceForFile: 'Advice is computed for the file’s setup.',
  saves: 'saves {0} per GPU → {1}',
  noSlower: 'no slower',
  slower: 'step time ×{0}',
  faster: 'step time ×{0} (faster)',
  changesResult: 'changes what is trained',
  needsGpus: 'needs {0} GPUs',
  apply: 'Apply',
  applyTitle: 'Edit the file to make this change',
  notApplicable: 'This format cannot be edited automatically; make the change by hand.',
  showFormula: 'Show formula',
  hideFormula: 'Hide formula',
  costHeading: 'Step-time cost',
  componentsAfter: 'Memory after the change',
  changeCol: 'Change',
  // Assumptions and warnings
  warningsHeading: 'Warnings',
  assumptionsHeading: 'Assumptions',
  assumptionKey: 'Setting',
  assumptionValue: 'Value',
  assumptionSource: 'Source',
  revealKey: 'Show {0} in the editor',
} as const;

export type StringId = keyof typeof S;

/** English strings of the panel, the keys of the l10n bundle. */
export const PANEL_STRINGS: readonly string[] = [...new Set(Object.values(S))];

let table: Readonly<Record<string, string>> = {};

/** Sets the translations (model.strings). */
export function setStrings(strings: Readonly<Record<string, string>>): void {
  table = strings;
}

/** The UI string `id`, translated when the bundle has it, with {0}, {1}, ... replaced by args. */
export function tr(id: StringId, ...args: ReadonlyArray<string | number>): string {
  const english: string = S[id];
  const text = table[english] ?? english;
  return args.length === 0 ? text : text.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m));
}

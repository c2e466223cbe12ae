// karpathy/nanoGPT's train.py and the projects that copy it: no Trainer and no argument classes. The run is the
// script's module globals (batch_size, block_size, n_layer ... init_from, dtype, compile), which configurator.py,
// exec'd into them, overrides with the config files and `--key=value` flags of the command line, in that order
// (`python train.py config/train_gpt2.py --batch_size=32`). A config file alone (config/train_gpt2.py: only such
// assignments) runs the train.py of its checkout with its values. Semantics from karpathy/nanoGPT@3adf61e: train.py
// (the model init, the GradScaler, configure_optimizers, the loop), model.py (GPT.from_pretrained's sizes, nn.GELU,
// flash attention through scaled_dot_product_attention, the tied head), configurator.py. Only literals are read; the
// script is never run. Pure: no I/O.
import { parsePython } from '../python-parse';
import {
  type ArgumentEnvironment,
  type CanonicalKey,
  type ConfigFacts,
  type Fact,
  type FactValue,
  type LaunchArgument,
  type Span,
  msg,
  type Unknown,
} from '../facts';
import { type Entry, PythonFile } from './file';
import { evaluateNumber, moduleConstants, positiveInt, type Named } from './module-constants';
import { clip } from './syntax';

const SOURCE = 'karpathy/nanoGPT@3adf61e';

/** nanoGPT's train.py: it builds model.py's GPT and execs configurator.py over its globals. */
export function isNanogptScript(text: string): boolean {
  return (
    text.includes('configurator.py') &&
    /^\s*from\s+model\s+import\s+[^\n]*\bGPT\b/m.test(text) &&
    /\bexec\(\s*open\(\s*(['"])configurator\.py\1\s*\)\.read\(\)\s*\)/.test(text)
  );
}

/** Globals of nanoGPT's train.py that its config files set. */
const GLOBALS = new Set([
  'out_dir',
  'eval_interval',
  'log_interval',
  'eval_iters',
  'eval_only',
  'always_save_checkpoint',
  'init_from',
  'wandb_log',
  'wandb_project',
  'wandb_run_name',
  'dataset',
  'gradient_accumulation_steps',
  'batch_size',
  'block_size',
  'n_layer',
  'n_head',
  'n_embd',
  'dropout',
  'bias',
  'learning_rate',
  'max_iters',
  'weight_decay',
  'beta1',
  'beta2',
  'grad_clip',
  'decay_lr',
  'warmup_iters',
  'lr_decay_iters',
  'min_lr',
  'backend',
  'device',
  'dtype',
  'compile',
]);
/** The globals that make a run: a config file sets at least one of them. */
const RUN_GLOBALS = ['batch_size', 'block_size', 'gradient_accumulation_steps', 'n_layer', 'init_from'];

/**
 * A nanoGPT config file (config/train_gpt2.py): nothing but assignments (and an import for them) of at least three of
 * train.py's globals, one of which makes the run.
 */
export function isNanogptConfig(text: string): boolean {
  const names = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd();
    if (!line.trim()) continue;
    const m = /^([A-Za-z_]\w*)\s*=(?!=)/.exec(line);
    if (m) names.add(m[1]);
    else if (!/^(?:import\s+\w+|from\s+\w+\s+import\s+\w+)\s*$/.test(line)) return false;
  }
  const known = [...names].filter((n) => GLOBALS.has(n));
  return known.length >= 3 && RUN_GLOBALS.some((n) => names.has(n));
}

/**
 * A nanoGPT config file: the train.py of its checkout (`python train.py config/x.py` runs from the folder above) with
 * the file's values as the command line's, in the order written.
 */
export function analyzeNanogptConfig(text: string): ConfigFacts {
  const file = new PythonFile(text);
  try {
    const top = parsePython(text).tree.topNode;
    const constants = moduleConstants(file, top);
    const args = configArguments(file, constants, 'this config file');
    const first = [...constants.values()][0];
    const span: Span = first?.entry.keySpan ?? { start: 0, end: 0 };
    file.references.push({ kind: 'script', path: '../train.py', span, args });
  } catch {
    // What was found before a failure is returned.
  }
  return file.result();
}

/** A config file's assignments as the command-line values of train.py's globals, `from` the file (collect/reading.ts). */
export function nanogptConfigArguments(text: string, from: string): LaunchArgument[] {
  const file = new PythonFile(text);
  try {
    return configArguments(file, moduleConstants(file, parsePython(text).tree.topNode), from);
  } catch {
    return [];
  }
}

/** A config file's assignments as command-line values of train.py's globals (numbers worked out, strings quoted). */
function configArguments(file: PythonFile, constants: ReadonlyMap<string, Named>, from: string): LaunchArgument[] {
  const out: LaunchArgument[] = [];
  for (const [name, n] of constants) {
    const node = n.entry.valueNode;
    const v = n.value ?? (node ? evaluateNumber(file.text, node, constants) : undefined);
    const value =
      typeof v === 'string'
        ? JSON.stringify(v)
        : typeof v === 'boolean'
          ? v
            ? 'True'
            : 'False'
          : v === null
            ? 'None'
            : v;
    out.push({ name, value: value === undefined ? null : String(value), from });
  }
  return out;
}

/** The facts of train.py, its globals overridden by the command line (`options`: config files, then flags). */
export function analyzeNanogptScript(text: string, options?: ArgumentEnvironment): ConfigFacts {
  const file = new PythonFile(text);
  file.tools.add('pytorch');
  file.readsConfigurator = true;
  try {
    const top = parsePython(text).tree.topNode;
    read(new Globals(file, moduleConstants(file, top), options));
  } catch {
    // What was found before a failure is returned.
  }
  return file.result();
}

/** One global as the run has it: the command line's value over train.py's, located at train.py's assignment. */
interface Global {
  readonly entry: Entry;
  readonly value: FactValue | null | undefined;
  /** Where the command line set it ("--batch_size 32 on the launch line"); absent for train.py's own value. */
  readonly source?: string;
  /** Why the command line's value is not known. */
  readonly unknown?: string;
}

/** train.py's globals with the command line over them. */
class Globals {
  constructor(
    readonly file: PythonFile,
    private readonly constants: ReadonlyMap<string, Named>,
    private readonly options: ArgumentEnvironment | undefined,
  ) {}

  get(name: string): Global | undefined {
    const own = this.constants.get(name);
    if (!own) return undefined;
    const set = this.options?.get(name);
    if (set?.launched) return { entry: own.entry, value: set.value, source: set.source, unknown: set.unknown };
    const node = own.entry.valueNode;
    const v = own.value ?? (node ? evaluateNumber(this.file.text, node, this.constants) : undefined);
    return { entry: own.entry, value: v };
  }

  /** A fact at the global's assignment in train.py, its text saying where the command line set it. */
  push(key: CanonicalKey, g: Global, value: FactValue | Unknown, extra: Partial<Fact> = {}): void {
    const { entry } = g;
    const written = this.file.text.slice(entry.valueSpan.start, entry.valueSpan.end);
    const rawValue = clip(g.source ? `${written} = ${fmt(g.value)}, ${g.source}` : written);
    this.file.facts.push({
      key,
      rawKey: entry.rawKey,
      value: g.unknown ? { unknown: g.unknown } : value,
      rawValue,
      keySpan: entry.keySpan,
      valueSpan: entry.valueSpan,
      tool: 'pytorch',
      ...extra,
    });
  }
}

const fmt = (v: FactValue | null | undefined): string =>
  v === null ? 'None' : v === undefined ? '?' : typeof v === 'string' ? `'${v}'` : String(v);

function read(g: Globals): void {
  architecture(g);
  const batch = g.get('batch_size');
  const gas = g.get('gradient_accumulation_steps');
  number(g, 'microBatchSize', batch);
  number(g, 'seqLen', g.get('block_size'));
  // train.py divides gradient_accumulation_steps by the DDP world size (asserting it divides): batch_size times it is
  // the batch of all GPUs, from which resolve gives each GPU's accumulation.
  const b = positiveInt(batch?.value);
  const steps = positiveInt(gas?.value);
  if (gas && b !== undefined && steps !== undefined) g.push('trainBatchSize', gas, b * steps);
  precision(g);
  const compile = g.get('compile');
  if (compile && typeof compile.value === 'boolean') g.push('compile', compile, compile.value);
  fixedFacts(g);
}

function number(g: Globals, key: CanonicalKey, v: Global | undefined): void {
  if (!v) return;
  const n = positiveInt(v.value);
  g.push(key, v, n ?? { unknown: `${v.entry.rawKey} is not a literal VRAM Lens reads` });
}

/**
 * dtype: 'float32', 'bfloat16' or 'float16' under torch.autocast over fp32 weights ('float16' with a GradScaler);
 * train.py's default picks bfloat16 where the GPU supports it.
 */
function precision(g: Globals): void {
  if (offCuda(g)) return;
  const d = g.get('dtype');
  if (!d) return;
  const text = g.file.text.slice(d.entry.valueSpan.start, d.entry.valueSpan.end);
  const map: Record<string, FactValue> = { float32: 'none', bfloat16: 'bf16', float16: 'fp16' };
  if (typeof d.value === 'string' && map[d.value] !== undefined) {
    g.push('mixedPrecision', d, map[d.value]);
    return;
  }
  if (d.value === undefined && !d.source && /'bfloat16'\s+if\b[^\n]*is_bf16_supported\(\)/.test(text)) {
    g.push('mixedPrecision', d, 'bf16', {
      origin: 'call-default',
      defaultNote: `train.py's dtype: bfloat16 on a GPU that supports it (Ampere and newer), else float16 with a GradScaler (${SOURCE})`,
    });
    return;
  }
  g.push('mixedPrecision', d, { unknown: `dtype is ${clip(text, 80)}` });
}

/**
 * `device = 'mps'` (or 'cpu'): train.py's `device_type = 'cuda' if 'cuda' in device else 'cpu'` makes its context
 * `nullcontext()`, so the run takes no autocast whatever dtype says (hrasto/nanoGPT's configs on an Apple GPU), and it
 * runs on no CUDA GPU: said at the global, the estimate being of the fp32 run on a GPU. True where so.
 */
function offCuda(g: Globals): boolean {
  const d = g.get('device');
  if (!d || typeof d.value !== 'string' || d.value.includes('cuda')) return false;
  g.push('mixedPrecision', d, 'none');
  g.file.problem(
    'runs-on-cpu',
    'warning',
    msg(
      "device = '{0}': train.py runs on no CUDA GPU and without autocast (its device_type is 'cpu', its context " +
        'nullcontext()); the estimate is of the same fp32 run on a CUDA GPU',
      d.value,
    ),
    d.entry.valueSpan,
    'device',
  );
  return true;
}

/** What train.py's code fixes, located at its `from model import` line: fp32 weights, model.py's GPT, the loop. */
function fixedFacts(g: Globals): void {
  const file = g.file;
  const m = /^\s*from\s+model\s+import\s+[^\n]*/m.exec(file.text);
  if (!m) return;
  const start = m.index + m[0].length - m[0].trimStart().length;
  const at: Span = { start, end: m.index + m[0].length };
  const entry: Entry = { rawKey: 'model.GPT', keySpan: at, valueNode: null, valueSpan: at };
  const fixed = (key: CanonicalKey, value: FactValue): void => file.push(key, entry, value, 'pytorch');
  fixed('method', 'full');
  fixed('weightsDtype', 'fp32');
  // model.py: F.scaled_dot_product_attention(is_causal=True) over fixed-length blocks of the token stream (get_batch).
  fixed('attention', 'sdpa');
  fixed('batchLengths', 'fixed');
  fixed('paddedBatches', false);
  fixed('gradientCheckpointing', 'none');
  fixed('loss', 'full');
  // `logits, loss = model(X, Y)`: the logits stay bound through the backward and the next forward.
  fixed('loopKeepsOutputs', true);
  // configure_optimizers: AdamW, fused where the device is CUDA.
  if (/\.configure_optimizers\(/.test(file.text)) fixed('optimizer', 'adamw_fused');
  if (/\bDDP\(\s*model\b/.test(file.text)) fixed('ddpFindUnused', false);
}

/** GPT.from_pretrained's sizes (model.py config_args): n_layer, n_head, n_embd; vocab 50257, block 1024, biases. */
const PRETRAINED: Readonly<Record<string, readonly [number, number, number]>> = {
  gpt2: [12, 12, 768],
  'gpt2-medium': [24, 16, 1024],
  'gpt2-large': [36, 20, 1280],
  'gpt2-xl': [48, 25, 1600],
};

/**
 * The model: init_from 'scratch' builds GPTConfig from the globals (the vocabulary 50,304 unless the dataset's
 * meta.pkl gives one), 'gpt2*' loads OpenAI's GPT-2 (its block cropped to block_size), 'resume' the checkpoint in
 * out_dir. model.py's GPT is GPT-2's layout with nn.GELU and the head tied to the token embedding.
 */
function architecture(g: Globals): void {
  const init = g.get('init_from');
  if (!init) return;
  const from = typeof init.value === 'string' ? init.value : undefined;
  const dropout = g.get('dropout')?.value;
  const p = typeof dropout === 'number' ? dropout : 0;
  const block = positiveInt(g.get('block_size')?.value);
  const gpt2 = (layers: number, heads: number, embd: number, vocab: number, positions: number): string =>
    JSON.stringify({
      model_type: 'gpt2',
      n_layer: layers,
      n_head: heads,
      n_embd: embd,
      vocab_size: vocab,
      n_positions: positions,
      activation_function: 'gelu',
      resid_pdrop: p,
      embd_pdrop: p,
      attn_pdrop: p,
      tie_word_embeddings: true,
    });
  const sizes = from ? PRETRAINED[from] : undefined;
  if (sizes) {
    g.push('model', init, from!);
    g.push('architecture', init, gpt2(...sizes, 50_257, Math.min(block ?? 1024, 1024)));
    return;
  }
  if (from !== 'scratch') {
    const why =
      from === 'resume'
        ? "init_from = 'resume': the model is the checkpoint in out_dir, read at run time"
        : `init_from is ${fmt(init.value)}: nanoGPT takes 'scratch', 'resume' or a gpt2 size`;
    g.push('model', init, { unknown: why });
    return;
  }
  const dims = ['n_layer', 'n_head', 'n_embd'].map((n) => g.get(n));
  const bad = dims.find((d) => d !== undefined && positiveInt(d.value) === undefined);
  if (bad || dims.some((d) => d === undefined) || block === undefined) {
    const at = bad ?? init;
    g.push('architecture', at, { unknown: `${at.entry.rawKey} is not a literal VRAM Lens reads` });
    return;
  }
  const [layers, heads, embd] = dims.map((d) => positiveInt(d!.value)!);
  const vocab = datasetVocabulary(g.get('dataset')?.value);
  g.push('architecture', init, gpt2(layers, heads, embd, vocab.size, block), {
    origin: 'call-default',
    defaultNote: `GPTConfig(n_layer=${layers}, n_head=${heads}, n_embd=${embd}, block_size=${block}, vocab_size=${vocab.size}): ${vocab.note}`,
  });
}

/**
 * The vocabulary of a model trained from scratch: data/<dataset>/meta.pkl's vocab_size when the dataset writes one
 * (shakespeare_char's prepare.py: 65 characters), else GPT-2's 50,257 rounded up to 50,304.
 */
function datasetVocabulary(dataset: FactValue | null | undefined): { size: number; note: string } {
  if (dataset === 'shakespeare_char')
    return {
      size: 65,
      note: `data/shakespeare_char/meta.pkl's 65 characters (${SOURCE} data/shakespeare_char/prepare.py)`,
    };
  return {
    size: 50_304,
    note:
      `train.py's vocabulary without a meta.pkl in data/${typeof dataset === 'string' ? dataset : '<dataset>'}: ` +
      `GPT-2's 50,257 rounded up to 50,304 (a meta.pkl the dataset's prepare.py writes gives its own; ${SOURCE})`,
  };
}

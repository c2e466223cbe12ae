// A training loop written out in the script (plain PyTorch, Accelerate, torch's FSDP by hand; no Trainer): a for or
// while loop that calls `.backward(`, directly or through a function it calls. The Trainer's defaults do not apply
// to it; what runs is what the script builds: the DataLoader the loop iterates (batch_size, 1 when absent), the
// Accelerator's mixed_precision and gradient_accumulation_steps, torch.autocast, the optimizer it constructs, FSDP's
// wrapping, the tokenizer's max_length, and whether a variable keeps the model's outputs from one step into the next.
// Pure: it reads the syntax tree and never runs code.
import type { SyntaxNode } from '@lezer/common';
import { msg, type Tool, type Unknown } from '../facts';
import type { Entry, PythonFile, Val } from './file';
import { argument, calleeFact } from './calls';
import { branchTaken, conditionOf } from './branches';
import { assignedName, assignmentTargets, children, clip, isModelLoad, span, targetNames, walk } from './syntax';
import { boolOf, dtypeOf, numberOf } from './values';
import { isLitgptModel } from './litgpt-api';
import { sequenceLength } from './sequence-length';
import { loopReferenceModel } from './loop-preference';
import { optimizerCall } from './optimizer-calls';
import { argumentAt } from './script-defaults';

const LOOP = 'pytorch' satisfies Tool;

/** The loop that runs the training steps, when the script writes one and builds no Trainer. */
export function trainingLoop(file: PythonFile, calls: readonly SyntaxNode[]): SyntaxNode | undefined {
  for (const c of calls) {
    if (!isBackward(file, c)) continue;
    const loop = enclosingLoop(c);
    if (loop) return loop;
    const fn = enclosingFunction(file, c);
    if (fn === undefined) continue;
    for (const d of calls) {
      if (file.calleeName(d)?.split('.').pop() !== fn) continue;
      const outer = enclosingLoop(d);
      if (outer) return outer;
    }
  }
  return straightLineStep(file, calls);
}

/**
 * A training step written once, in no loop (RethinkFun/sft's sft_simple.py: `loss.backward()`, `optimizer.step()` at
 * the module's top level): the block that holds the backward and a `.step(` after it, read as a loop of one step.
 */
function straightLineStep(file: PythonFile, calls: readonly SyntaxNode[]): SyntaxNode | undefined {
  for (const c of calls) {
    if (!isBackward(file, c) || enclosingLoop(c)) continue;
    let block: SyntaxNode | null = c.parent;
    while (block && block.name !== 'Body' && block.name !== 'Script') block = block.parent;
    if (!block) continue;
    const within = block;
    if (calls.some((d) => d.from > c.to && d.to <= within.to && isStep(file, d))) return within;
  }
  return undefined;
}

/** `optimizer.step()`, `scaler.step(optimizer)`: a call of a member named step. */
function isStep(file: PythonFile, call: SyntaxNode): boolean {
  const prop = call.firstChild?.name === 'MemberExpression' ? call.firstChild.lastChild : null;
  return prop?.name === 'PropertyName' && file.text.slice(prop.from, prop.to) === 'step';
}

/** What the loop script says about memory, as facts of the 'pytorch' tool (Accelerate's own keys as 'accelerate'). */
export function loopFacts(file: PythonFile, calls: readonly SyntaxNode[], loop: SyntaxNode): void {
  file.tools.add(LOOP);
  const models = modelNames(file, calls);
  modelLeftOnCpu(file, calls, models);
  dataLoaderBatch(file, calls, loop);
  for (const c of calls) {
    const last = file.calleeName(c)?.split('.').pop() ?? '';
    if (last === 'Accelerator') acceleratorCall(file, c);
    else if (last === 'autocast') autocastCall(file, c);
    else modelWrap(file, c, last);
  }
  gradientSync(file, calls);
  stepEvery(file, calls, loop);
  ddpWrapRuns(file, calls);
  optimizerCall(file, calls, loop, LOOP);
  sequenceLength(file, calls, LOOP);
  configUseCache(file);
  // Outputs kept into the next step: a step written once has none.
  if (loop.name === 'ForStatement' || loop.name === 'WhileStatement') keptOutputs(file, loop, models);
  loopReferenceModel(file, calls);
}

// ---- Finding the loop ----

/** `x.backward(...)`, `accelerator.backward(loss)`, `scaler.scale(loss).backward()`, `torch.autograd.backward(...)`. */
function isBackward(file: PythonFile, call: SyntaxNode): boolean {
  const callee = call.firstChild;
  if (callee?.name !== 'MemberExpression') return false;
  const prop = callee.lastChild;
  return prop?.name === 'PropertyName' && file.text.slice(prop.from, prop.to) === 'backward';
}

function enclosingLoop(node: SyntaxNode): SyntaxNode | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.name === 'ForStatement' || p.name === 'WhileStatement') return p;
    if (p.name === 'FunctionDefinition' || p.name === 'ClassDefinition' || p.name === 'LambdaExpression') return;
  }
  return undefined;
}

export function enclosingFunction(file: PythonFile, node: SyntaxNode): string | undefined {
  for (let p = node.parent; p; p = p.parent) {
    if (p.name !== 'FunctionDefinition') continue;
    const name = p.getChild('VariableName');
    return name ? file.text.slice(name.from, name.to) : undefined;
  }
  return undefined;
}

// ---- The model ----

/** Wrappers whose result is the model they are given first: PEFT, torch's FSDP / DDP, torch.compile. */
const MODEL_WRAPPERS = new Set([
  'get_peft_model',
  'prepare_model_for_kbit_training',
  'prepare_model_for_int8_training',
  'PeftModel',
  'FSDP',
  'FullyShardedDataParallel',
  'DDP',
  'DistributedDataParallel',
  'compile',
  'fully_shard',
]);

/**
 * Names bound to the model: the results of a model class's from_pretrained / from_config and of the wrappers, `.to()`
 * and `.cuda()` of a model name, and the place of the model in what `accelerator.prepare(...)` returns.
 */
export function modelNames(file: PythonFile, calls: readonly SyntaxNode[]): Set<string> {
  const names = new Set<string>();
  const isModel = (n: SyntaxNode | undefined): boolean =>
    n !== undefined && n.name === 'VariableName' && names.has(file.text.slice(n.from, n.to));
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    const last = parts[parts.length - 1] ?? '';
    const args = file.args(c).positional;
    const loaded = isModelLoad(parts) || isLitgptModel(file, parts);
    const wrapped = MODEL_WRAPPERS.has(last) && isModel(args[0]);
    const moved = (last === 'to' || last === 'cuda') && parts.length === 2 && names.has(parts[0]);
    if (loaded || wrapped || moved) {
      const target = assignedName(chained(file, c), file.text);
      if (target) names.add(target);
    } else if (last === 'prepare') {
      const at = args.findIndex(isModel);
      const targets = unpackTargets(file, c);
      const single = targets.length === 0 && at === 0 ? assignedName(c, file.text) : undefined;
      const target = at >= 0 ? (targets[at] ?? single) : undefined;
      if (target) names.add(target);
    }
  }
  return names;
}

/**
 * A loop whose model nothing moves to a GPU (Truenumbers/TN-LLM-Prototyping's fine-tuner1.py: from_pretrained with no
 * device_map, no `.to(...)` or `.cuda()`, no Accelerator): PyTorch keeps the module on the CPU, so the run allocates
 * nothing on a GPU. Said at the model's load, where the file shows no way the model or the work reaches a device; the
 * estimate stays the GPU run's.
 */
function modelLeftOnCpu(file: PythonFile, calls: readonly SyntaxNode[], models: ReadonlySet<string>): void {
  if (models.size === 0 || DEVICE_PLACEMENT.test(file.text)) return;
  const load = calls.find((c) => isModelLoad(file.calleeName(c)?.split('.') ?? []));
  if (!load) return;
  file.problem(
    'runs-on-cpu',
    'warning',
    msg(
      'nothing in this file moves the model to a GPU (no .to(...), .cuda(), device_map or accelerator.prepare): ' +
        'PyTorch keeps it on the CPU and the loop trains there; the estimate is of the run with the model on a GPU',
    ),
    span(load),
  );
}

/** What places a model or its work on a device: a move, a device map, a launcher's wrapping or a default device. */
const DEVICE_PLACEMENT = new RegExp(
  [
    String.raw`\.to\(|\.cuda\(|device_map|\.prepare\(|\.setup\(|set_default_device|deepspeed\.initialize|\bdevice\s*=`,
    String.raw`\b(FSDP|FullyShardedDataParallel|fully_shard|DDP|DistributedDataParallel)\(`,
  ].join('|'),
);

/** Methods that return the module they are called on (`from_pretrained(...).cuda()`, `.to(device)`, `.train()`). */
const SELF_RETURNING = new Set(['to', 'cuda', 'half', 'bfloat16', 'float', 'train']);

/** The outermost call of a chain of self-returning methods on `call`'s result. */
function chained(file: PythonFile, call: SyntaxNode): SyntaxNode {
  let c = call;
  for (;;) {
    const member = c.parent;
    const prop = member?.name === 'MemberExpression' ? member.lastChild : null;
    const outer = member?.parent;
    if (!prop || outer?.name !== 'CallExpression' || !SELF_RETURNING.has(file.text.slice(prop.from, prop.to))) return c;
    c = outer;
  }
}

/** The names of `a, b, c = call(...)`, in order (empty unless the call is the whole right-hand side). */
function unpackTargets(file: PythonFile, call: SyntaxNode): string[] {
  const st = call.parent;
  if (st?.name !== 'AssignStatement' || st.lastChild !== call) return [];
  const out: string[] = [];
  for (let ch = st.firstChild; ch && ch.name !== 'AssignOp'; ch = ch.nextSibling)
    if (ch.name === 'VariableName') out.push(file.text.slice(ch.from, ch.to));
  return out.length > 1 ? out : [];
}

// ---- The batch ----

/**
 * The DataLoader the loop iterates: the one bound to a name of the loop's iterable (`for batch in train_dataloader`,
 * through enumerate or tqdm), else the only one, else the one whose name says train. Its batch_size, or 1, torch's
 * default, when it gives none and no batch_sampler.
 */
function dataLoaderBatch(file: PythonFile, calls: readonly SyntaxNode[], loop: SyntaxNode): void {
  const loaders = calls.filter((c) => file.calleeName(c)?.split('.').pop() === 'DataLoader');
  const iterated = new Set<string>();
  if (loop.name === 'ForStatement') {
    const from = loop.getChild('in')?.to ?? loop.to;
    const to = loop.getChild('Body')?.from ?? loop.to;
    walk(loop, (n) => {
      if (n.name === 'VariableName' && n.from >= from && n.to <= to) iterated.add(file.text.slice(n.from, n.to));
    });
  }
  const named = (c: SyntaxNode): string => assignedName(c, file.text) ?? '';
  const pick =
    loaders.find((c) => iterated.has(named(c))) ??
    (loaders.length === 1 ? loaders[0] : loaders.find((c) => /train/i.test(named(c))));
  if (pick && !builtBatch(file, calls, pick, iterated)) loaderBatch(file, pick);
}

/**
 * A DataLoader a function of the file builds with its parameter's batch (`def get_dataloader(..., batch_size):
 * return DataLoader(..., batch_size=batch_size)`), called for the loader the loop iterates and for another
 * (Srini-98/TEXT2SQL-EHRSQL: `train_loader = get_dataloader(..., batch_size=train_batch_size)`, and the evaluation's
 * with eval_batch_size): the batch that call passes. False where the loader is not built so.
 */
function builtBatch(file: PythonFile, calls: readonly SyntaxNode[], pick: SyntaxNode, iterated: Set<string>): boolean {
  const size = argument(file.args(pick))('batch_size', 1);
  const node = size?.valueNode;
  if (!size || node?.name !== 'VariableName') return false;
  const found = file.lookup(file.text.slice(node.from, node.to), node);
  const param = found.k === 'none' ? found.param : undefined;
  if (!param?.scope.fn) return false;
  // The call whose loader the loop iterates, else the one whose name says train (an epoch loop around a tqdm of it).
  const sites = calls.filter((c) => file.calleeName(c) === param.scope.fn);
  const names = (c: SyntaxNode): string[] => assignedNames(c, file.text);
  const site =
    sites.find((c) => names(c).some((x) => iterated.has(x))) ??
    sites.find((c) => names(c).some((x) => /train/i.test(x)));
  const v = site ? argumentAt(file, param.scope, param.name, site, 0) : undefined;
  const n = v?.k === 'lit' && typeof v.v === 'number' && Number.isInteger(v.v) && v.v > 0 ? v.v : undefined;
  if (n === undefined) return false;
  file.push('microBatchSize', size, n, LOOP, v);
  return true;
}

/**
 * A script that writes no loop of its own but hands a DataLoader it builds to a function or class of its project
 * (alibaba/EasyNLP's BeautifulPrompt train_rm.py: `DataLoader(..., batch_size=args.batch_size)`, then `RMTrainer(model,
 * train_dataloader, ...)`, whose `train()` iterates it): that loader's batch is the run's.
 */
export function handedLoaderBatch(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const project = new Set(file.references.flatMap((r) => (r.kind === 'module' ? (r.calls ?? []) : [])));
  if (project.size === 0) return;
  const handedTo = (name: string): boolean =>
    calls.some((h) => {
      const callee = file.calleeName(h)?.split('.')[0];
      if (callee === undefined || !project.has(callee)) return false;
      const args = file.args(h);
      const values = [...args.positional, ...args.entries.map((e) => e.valueNode)];
      return values.some((v) => v?.name === 'VariableName' && file.text.slice(v.from, v.to) === name);
    });
  const handed = (c: SyntaxNode): boolean => {
    const name = assignedName(c, file.text);
    return name !== undefined && handedTo(name);
  };
  const loader = calls.find((c) => file.calleeName(c)?.split('.').pop() === 'DataLoader' && handed(c));
  if (loader) loaderBatch(file, loader);
  // The model it wraps and hands to the project's loop (pytorch/examples' T5_training.py: `model = FSDP(model, ...)`,
  // then `train(args, model, rank, world_size, train_loader, optimizer, epoch)` of utils/train_utils.py).
  for (const c of calls) if (handed(c)) modelWrap(file, c, file.calleeName(c)?.split('.').pop() ?? '');
}

/** A wrap of the model: FSDP1, FSDP2's fully_shard, DDP; one on a branch the run does not take shards nothing. */
function modelWrap(file: PythonFile, c: SyntaxNode, last: string): void {
  if ((last === 'FSDP' || last === 'FullyShardedDataParallel') && branchTaken(file, c) !== false) fsdpWrap(file, c);
  else if (last === 'fully_shard' && branchTaken(file, c) !== false) fullyShard(file, c);
  else if (last === 'DDP' || last === 'DistributedDataParallel') ddpWrap(file, c);
}

/** The names a call's result is bound to: `loader = f()`, and each of `sampler, loader = f()`. */
function assignedNames(call: SyntaxNode, text: string): string[] {
  const at = call.parent?.name === 'AssignStatement' ? assignmentTargets(call.parent) : undefined;
  return (at && targetNames(at.targets)?.map((n) => text.slice(n.from, n.to))) ?? [];
}

/** A DataLoader's batch_size, or 1, torch's default, when it gives none and no batch_sampler. */
function loaderBatch(file: PythonFile, pick: SyntaxNode): void {
  const args = file.args(pick);
  const size = datasetBatch(file, args) ?? argument(args)('batch_size', 1);
  if (size) {
    const x = file.valueOf(size);
    const n = numberOf(file, x, size, true);
    if (n !== undefined) file.push('microBatchSize', size, n, LOOP, x);
  } else if (!args.entries.some((e) => e.rawKey === 'batch_sampler') && args.opaque.length === 0) {
    calleeFact(file, pick, 'microBatchSize', 'batch_size', 1, 'DataLoader: default batch_size=1', LOOP, 'call-default');
  }
}

/**
 * `DataLoader(dataset, batch_size=None)` turns automatic batching off: the dataset yields whole batches (GaLore's
 * torchrun_main.py: `PreprocessedIterableDataset(..., batch_size=args.batch_size)`). The batch_size its constructor is
 * given, where the dataset is a name bound to that call.
 */
function datasetBatch(file: PythonFile, args: ReturnType<PythonFile['args']>): Entry | undefined {
  const size = argument(args)('batch_size', 1);
  const off = size?.valueNode?.name === 'None';
  const dataset = argument(args)('dataset', 0)?.valueNode;
  if (!off || dataset?.name !== 'VariableName') return undefined;
  const made = file.evalNode(dataset, 0);
  return made.k === 'call' ? file.args(made.node).entries.find((e) => e.rawKey === 'batch_size') : undefined;
}

// ---- Precision and accumulation ----

/**
 * Accelerator(mixed_precision=..., gradient_accumulation_steps=...). A mixed_precision the script states wins over the
 * launcher's config: Accelerate reads ACCELERATE_MIXED_PRECISION only when the argument is None (state.py
 * AcceleratorState); the accumulation is read from ACCELERATE_GRADIENT_ACCUMULATION_STEPS first, the argument being its
 * default (accelerator.py), so a launcher's value wins there.
 */
function acceleratorCall(file: PythonFile, call: SyntaxNode): void {
  for (const e of file.args(call).entries) {
    const x = file.valueOf(e);
    if (e.rawKey === 'mixed_precision') {
      const v = mixedPrecisionOf(file, x);
      if (v === undefined) continue;
      file.push('mixedPrecision', e, v, 'accelerate', x);
      // A script default (`args.mixed_precision`) is what runs only when the command line passes nothing.
      const f = file.facts[file.facts.length - 1];
      if (f.origin === undefined) file.facts[file.facts.length - 1] = { ...f, overridesLauncher: true };
    } else if (e.rawKey === 'gradient_accumulation_steps') {
      const n = numberOf(file, x, e, true);
      if (n !== undefined) file.push('gradientAccumulationSteps', e, n, 'accelerate', x);
    }
  }
}

function mixedPrecisionOf(file: PythonFile, x: Val): string | Unknown | undefined {
  if (x.k === 'lit' && x.v === null) return undefined;
  const s =
    x.k === 'lit' && typeof x.v === 'string'
      ? x.v.toLowerCase()
      : x.k === 'dotted' && /(^|\.)PrecisionType\.\w+$/.test(x.text)
        ? x.text.split('.').pop()!.toLowerCase()
        : undefined;
  if (s === 'no') return 'none';
  if (s === 'bf16' || s === 'fp16' || s === 'fp8') return s;
  return { unknown: s === undefined ? file.describe(x) : `mixed_precision "${s}" is not one of no, fp16, bf16, fp8` };
}

/**
 * Whether the micro-batches before the last defer FSDP's gradient sync (fsdpNoSync): `model.no_sync()`,
 * `accelerator.no_sync(model)`, Fabric's `no_backward_sync(model, enabled=...)`, FSDP2's
 * `set_requires_gradient_sync(...)` with anything but True, and `accelerator.accumulate(model)`, which is no_sync unless
 * the Accelerator's GradientAccumulationPlugin says sync_each_batch (accelerate accelerator.py accumulate).
 */
function gradientSync(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const plugin = calls
    .filter((c) => file.calleeName(c)?.split('.').pop() === 'GradientAccumulationPlugin')
    .map((c) => argument(file.args(c))('sync_each_batch'))
    .find((e) => e !== undefined);
  for (const c of calls) {
    const parts = file.calleeName(c)?.split('.') ?? [];
    const last = parts[parts.length - 1] ?? '';
    if (last === 'no_sync' || last === 'no_backward_sync') {
      calleeFact(file, c, 'fsdpNoSync', last, true, `${parts.join('.')}(...)`, LOOP);
      return;
    }
    if (last === 'set_requires_gradient_sync') {
      const arg = argument(file.args(c))('requires_gradient_sync', 0);
      const x = arg ? file.valueOf(arg) : undefined;
      if (x?.k === 'lit' && x.v === true) continue;
      calleeFact(file, c, 'fsdpNoSync', last, true, `${parts.join('.')}(...)`, LOOP);
      return;
    }
    if (last === 'accumulate' && parts.length === 2 && /accelerat/i.test(parts[0])) {
      const x = plugin ? file.valueOf(plugin) : undefined;
      const each = plugin && x ? boolOf(file, x, plugin) : undefined;
      if (plugin && x && typeof each === 'boolean') file.push('fsdpNoSync', plugin, !each, 'accelerate', x);
      else calleeFact(file, c, 'fsdpNoSync', 'accumulate', true, `${parts.join('.')}(...)`, 'accelerate');
      return;
    }
  }
}

/**
 * The optimizer stepped every N micro-batches: its `.step(` under `if (idx + 1) % N == 0:` in the loop (gradient
 * accumulation written by hand: go-akshit/spring2024-assignment5-alignment's instruction_finetuning.py with
 * `--gradient_accumulation_steps` 16 by default), whose gradients are kept from one micro-batch to the next.
 */
function stepEvery(file: PythonFile, calls: readonly SyntaxNode[], loop: SyntaxNode): void {
  for (const c of calls) {
    if (c.from < loop.from || c.to > loop.to || !isStep(file, c)) continue;
    for (let p = c.parent; p && p !== loop; p = p.parent) {
      const divisor = p.name === 'IfStatement' ? moduloTestDivisor(file, p.firstChild?.nextSibling) : undefined;
      if (!divisor) continue;
      const e: Entry = {
        rawKey: 'gradient_accumulation_steps',
        keySpan: span(divisor),
        valueNode: divisor,
        valueSpan: span(divisor),
      };
      const x = file.valueOf(e);
      const n = numberOf(file, x, e, true);
      if (n !== undefined) file.push('gradientAccumulationSteps', e, n, LOOP, x);
      return;
    }
  }
}

/** N of a test `<expr> % N == 0` (or `0 == <expr> % N`), else undefined. */
function moduloTestDivisor(file: PythonFile, test: SyntaxNode | null | undefined): SyntaxNode | undefined {
  if (test?.name !== 'BinaryExpression') return undefined;
  const [left, op, right] = [test.firstChild, test.firstChild?.nextSibling, test.lastChild];
  if (op?.name !== 'CompareOp' || file.text.slice(op.from, op.to) !== '==' || !left || !right) return undefined;
  const zero = (n: SyntaxNode): boolean => n.name === 'Number' && file.text.slice(n.from, n.to) === '0';
  const modulo = zero(right) ? left : zero(left) ? right : undefined;
  const mod = modulo?.name === 'BinaryExpression' ? modulo.firstChild?.nextSibling : undefined;
  return mod?.name === 'ArithOp' && file.text.slice(mod.from, mod.to) === '%'
    ? (modulo?.lastChild ?? undefined)
    : undefined;
}

/**
 * torch.autocast / torch.amp.autocast / torch.cuda.amp.autocast on CUDA: its dtype, float16 when it names none (the
 * CUDA default, torch.get_autocast_dtype("cuda")). A CPU autocast or `enabled=False` changes nothing on the GPU.
 */
function autocastCall(file: PythonFile, call: SyntaxNode): void {
  const callee = file.calleeName(call) ?? '';
  const cudaAmp = callee.includes('cuda.amp');
  const get = argument(file.args(call));
  const device = cudaAmp ? undefined : get('device_type', 0);
  const dv = device ? file.valueOf(device) : undefined;
  if (dv?.k === 'lit' && dv.v !== 'cuda') return;
  const enabled = get('enabled', cudaAmp ? 0 : 2);
  const ev = enabled ? file.valueOf(enabled) : undefined;
  if (ev?.k === 'lit' && ev.v === false) return;
  const dtype = get('dtype', 1);
  if (dtype) {
    const x = file.valueOf(dtype);
    const d = dtypeOf(file, x);
    if (d !== undefined && d !== 'fp32') file.push('mixedPrecision', dtype, d, LOOP, x);
    return;
  }
  calleeFact(file, call, 'mixedPrecision', 'autocast', 'fp16', `${clip(callee)}: default dtype float16 on CUDA`, LOOP);
}

// ---- FSDP by hand ----

const SHARDING: Record<string, string> = {
  FULL_SHARD: 'full_shard',
  SHARD_GRAD_OP: 'shard_grad_op',
  NO_SHARD: 'no_shard',
  HYBRID_SHARD: 'hybrid_shard',
  _HYBRID_SHARD_ZERO2: 'hybrid_shard',
};

/**
 * torch's FSDP1 wrapper, `FSDP(model, sharding_strategy=..., cpu_offload=CPUOffload(offload_params=True),
 * mixed_precision=MixedPrecision(param_dtype=...))`: FULL_SHARD when it names no strategy (fully_sharded_data_parallel.py).
 */
function fsdpWrap(file: PythonFile, call: SyntaxNode): void {
  if (file.facts.some((f) => f.key === 'fsdpVersion' && f.tool === LOOP)) return;
  const args = file.args(call);
  const get = argument(args);
  calleeFact(file, call, 'fsdpVersion', 'FSDP', 1, 'FSDP(...)', LOOP);
  const strategy = get('sharding_strategy');
  if (strategy) {
    const x = file.valueOf(strategy);
    const name = x.k === 'dotted' ? x.text.split('.').pop()! : x.k === 'lit' && typeof x.v === 'string' ? x.v : '';
    const v = SHARDING[name.toUpperCase()];
    file.push('fsdp', strategy, v ?? { unknown: `sharding_strategy is ${file.describe(x)}` }, LOOP, x);
  } else {
    calleeFact(file, call, 'fsdp', 'sharding_strategy', 'full_shard', 'FSDP: default FULL_SHARD', LOOP, 'call-default');
  }
  const offload = get('cpu_offload');
  if (offload?.valueNode?.name === 'CallExpression') {
    const inner = argument(file.args(offload.valueNode))('offload_params', 0);
    if (inner) {
      const x = file.valueOf(inner);
      const b = boolOf(file, x, inner);
      if (b !== undefined) file.push('fsdpOffload', inner, b, LOOP, x);
    }
  }
  const mp = get('mixed_precision');
  if (mp?.valueNode?.name === 'CallExpression') paramDtype(file, mp.valueNode, 'param_dtype');
  backwardPrefetch(file, call, get('backward_prefetch'));
  useOrigParams(file, call, get('use_orig_params'));
  limitAllGathers(file, call, get('limit_all_gathers'));
}

/**
 * FSDP1's `limit_all_gathers=True | False`; where the call names none, 'torch': the constructor's default, False
 * before PyTorch 2.1 and True from it (fully_sharded_data_parallel.py), decided once the run's PyTorch is known.
 */
function limitAllGathers(file: PythonFile, call: SyntaxNode, e: Entry | undefined): void {
  if (!e) {
    const shown = "FSDP: PyTorch's default";
    calleeFact(file, call, 'fsdpLimitAllGathers', 'limit_all_gathers', 'torch', shown, LOOP, 'call-default');
    return;
  }
  const x = file.valueOf(e);
  const b = boolOf(file, x, e);
  if (b !== undefined) file.push('fsdpLimitAllGathers', e, b, LOOP, x);
}

/**
 * FSDP1's `use_orig_params=True | False`; False when the call names none (fully_sharded_data_parallel.py), as Answer.AI's
 * fsdp_qlora train.py leaves it.
 */
function useOrigParams(file: PythonFile, call: SyntaxNode, e: Entry | undefined): void {
  if (!e) {
    calleeFact(file, call, 'fsdpUseOrigParams', 'use_orig_params', false, 'FSDP: default False', LOOP, 'call-default');
    return;
  }
  const x = file.valueOf(e);
  const b = boolOf(file, x, e);
  if (b !== undefined) file.push('fsdpUseOrigParams', e, b, LOOP, x);
}

const PREFETCH: Record<string, 'pre' | 'post'> = { BACKWARD_PRE: 'pre', BACKWARD_POST: 'post' };

/**
 * FSDP1's `backward_prefetch=BackwardPrefetch.BACKWARD_PRE | BACKWARD_POST | None`; BACKWARD_PRE when the call names
 * none (fully_sharded_data_parallel.py), as Answer.AI's fsdp_qlora train.py leaves it.
 */
function backwardPrefetch(file: PythonFile, call: SyntaxNode, e: Entry | undefined): void {
  if (!e) {
    calleeFact(
      file,
      call,
      'fsdpBackwardPrefetch',
      'backward_prefetch',
      'pre',
      'FSDP: default BACKWARD_PRE',
      LOOP,
      'call-default',
    );
    return;
  }
  const x = file.valueOf(e);
  const name = x.k === 'dotted' ? x.text.split('.').pop()! : '';
  const v = x.k === 'lit' && x.v === null ? 'none' : PREFETCH[name];
  file.push('fsdpBackwardPrefetch', e, v ?? { unknown: `backward_prefetch is ${file.describe(x)}` }, LOOP, x);
}

/**
 * torch's `DistributedDataParallel(model, find_unused_parameters=...)`: False when the call names none
 * (torch/nn/parallel/distributed.py). With True its Reducer takes capped buckets from the first step and `_DDPSink`
 * clones the forward's outputs (setup key ddp_find_unused_parameters, terms/ddp-outputs.ts).
 */
function ddpWrap(file: PythonFile, call: SyntaxNode): void {
  if (file.facts.some((f) => f.key === 'ddpFindUnused' && f.tool === LOOP)) return;
  const e = argument(file.args(call))('find_unused_parameters');
  if (!e) {
    const note = 'DDP: default False';
    calleeFact(file, call, 'ddpFindUnused', 'find_unused_parameters', false, note, LOOP, 'call-default');
    return;
  }
  const x = file.valueOf(e);
  const b = boolOf(file, x, e);
  if (b !== undefined) file.push('ddpFindUnused', e, b, LOOP, x);
}

/**
 * Whether the loop's model is wrapped in torch's DDP where the script writes the wrap on a branch (Finetune_llama2_
 * Megatron: `if training_args.use_ddp: model = DDP(model, ...)`, launched with `--use_ddp False`): each process then
 * trains its own whole copy, with no gradient buckets. A test on an option (its default until the launch line's value
 * is in) or one not known leaves the wrap open, which asks for the script's reading with the run's options
 * (launch-args.ts withBranchesDecided); there, false where no wrap runs. A script that writes no wrap says nothing (a
 * helper may wrap the model: DDP is assumed, as it is where a test stays open).
 */
function ddpWrapRuns(file: PythonFile, calls: readonly SyntaxNode[]): void {
  if (file.imported) return;
  const written = ddpCallsWritten(file);
  if (written.length === 0) return;
  const at = span(written[0].firstChild!);
  const push = (value: Unknown | false, rawValue: string): void => {
    // Pushed as it is: a test that stays open leaves DDP assumed, with no problem of its own.
    file.facts.push({
      key: 'ddpWrap',
      rawKey: 'DistributedDataParallel',
      value,
      rawValue,
      keySpan: at,
      valueSpan: at,
      tool: LOOP,
    });
  };
  if (!file.settled) {
    const open = written.every((c) => branchTaken(file, c) !== true || testsOnDefaults(file, c));
    const cond = open ? conditionOf(file, written[0]) : undefined;
    if (cond) push({ unknown: `the model is wrapped in DDP only when ${cond}` }, 'DDP(...)');
    return;
  }
  // Nodes are compared by place: the tree hands out a new object for the same node at each lookup.
  const listed = (c: SyntaxNode): boolean => calls.some((d) => d.from === c.from && d.to === c.to);
  if (!written.some((c) => listed(c) && branchTaken(file, c) !== false))
    push(false, `DDP(...) at line ${file.line(written[0].from)}, on a branch the run does not take`);
}

/** Whether an `if` around a call tests a value read from an option's default, which the launch line may replace. */
function testsOnDefaults(file: PythonFile, call: SyntaxNode): boolean {
  for (let p = call.parent; p && p.name !== 'FunctionDefinition'; p = p.parent) {
    if (p.name !== 'IfStatement') continue;
    for (const c of children(p)) {
      if (['if', 'elif', 'else', ':', 'Body', 'Comment'].includes(c.name)) continue;
      const v = file.evalNode(c, 0);
      if (v.k === 'lit' && v.dflt) return true;
    }
  }
  return false;
}

/** The calls of torch's DDP the file writes (`DDP(model, ...)`, `DistributedDataParallel(...)`), wherever they are. */
function ddpCallsWritten(file: PythonFile): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const m of file.text.matchAll(/\b(?:DDP|DistributedDataParallel)\s*\(/g)) {
    const name = file.root.resolveInner(m.index, 1);
    const callee = name.parent?.name === 'MemberExpression' ? name.parent : name;
    const call = callee.parent;
    if (call?.name === 'CallExpression' && call.firstChild?.to === callee.to) out.push(call);
  }
  return out;
}

/**
 * FSDP2's `fully_shard(module, reshard_after_forward=..., offload_policy=CPUOffloadPolicy(), mp_policy=
 * MixedPrecisionPolicy(param_dtype=...))`, read from the first call (the script applies it to each layer, then the root).
 */
function fullyShard(file: PythonFile, call: SyntaxNode): void {
  if (file.facts.some((f) => f.key === 'fsdpVersion' && f.tool === LOOP)) return;
  const get = argument(file.args(call));
  calleeFact(file, call, 'fsdpVersion', 'fully_shard', 2, 'fully_shard(...)', LOOP);
  const reshard = get('reshard_after_forward');
  const rx = reshard ? file.valueOf(reshard) : undefined;
  if (reshard && rx?.k === 'lit' && rx.v === false) file.push('fsdp', reshard, 'shard_grad_op', LOOP, rx);
  else calleeFact(file, call, 'fsdp', 'fully_shard', 'full_shard', 'fully_shard(...)', LOOP);
  const offload = get('offload_policy');
  const ov = offload?.valueNode;
  if (offload && ov?.name === 'CallExpression' && /CPUOffloadPolicy$/.test(file.calleeName(ov) ?? ''))
    file.push('fsdpOffload', offload, true, LOOP);
  const mp = get('mp_policy');
  if (mp?.valueNode?.name === 'CallExpression') paramDtype(file, mp.valueNode, 'param_dtype');
}

/** MixedPrecision(param_dtype=torch.bfloat16): FSDP gathers and computes in that dtype. */
function paramDtype(file: PythonFile, policy: SyntaxNode, key: string): void {
  const e = argument(file.args(policy))(key, 0);
  if (!e) return;
  const x = file.valueOf(e);
  const d = dtypeOf(file, x);
  if (d === 'bf16' || d === 'fp16') file.push('mixedPrecision', e, d, LOOP, x);
}

// ---- What the loop keeps ----

/**
 * `outputs = model(...)` (or `logits = model(...).logits`) in the loop's body: never released there, the name keeps
 * the step's outputs through its backward and optimizer step until the next forward has returned and rebinds it
 * (true); released (`del outputs`, `outputs = None`) after the backward, it keeps them through the backward only as far
 * as the release ('step': AnswerDotAI/fsdp_qlora train.py sets `output = None` after the optimizer step); released
 * before the backward, nothing. Assignments under torch.no_grad() or inference_mode() (an evaluation inside the loop)
 * keep no graph and are skipped.
 */
function keptOutputs(file: PythonFile, loop: SyntaxNode, models: ReadonlySet<string>): void {
  const releases: { name: string; at: number }[] = [];
  const backwards: number[] = [];
  const kept: { target: SyntaxNode; rhs: SyntaxNode }[] = [];
  walk(loop, (n) => {
    if (n.name === 'DeleteStatement')
      for (const v of children(n))
        if (v.name === 'VariableName') releases.push({ name: file.text.slice(v.from, v.to), at: n.from });
    if (n.name === 'CallExpression' && isBackward(file, n)) backwards.push(n.from);
    if (n.name !== 'AssignStatement' || underNoGrad(file, n, loop)) return;
    const target = n.firstChild;
    const rhs = n.lastChild;
    if (target?.name !== 'VariableName' || target.nextSibling?.name !== 'AssignOp' || !rhs) return;
    if (rhs.name === 'None') releases.push({ name: file.text.slice(target.from, target.to), at: n.from });
    else if (isModelCall(file, rhs, models)) kept.push({ target, rhs });
  });
  const held = (k: { target: SyntaxNode }): boolean | 'step' => {
    const name = file.text.slice(k.target.from, k.target.to);
    const release = releases.find((r) => r.name === name && r.at > k.target.from);
    if (!release) return true;
    return backwards.some((b) => b > k.target.from && b < release.at) ? 'step' : false;
  };
  const hit = kept.find((k) => held(k) !== false);
  if (!hit) return;
  const name = file.text.slice(hit.target.from, hit.target.to);
  const e: Entry = { rawKey: name, keySpan: span(hit.target), valueNode: hit.rhs, valueSpan: span(hit.rhs) };
  file.push('loopKeepsOutputs', e, held(hit), LOOP);
  const call = hit.rhs.name === 'CallExpression' ? hit.rhs : hit.rhs.firstChild!;
  const flag = argument(file.args(call))('use_cache');
  if (flag) {
    const x = file.valueOf(flag);
    const b = boolOf(file, x, flag);
    if (b !== undefined) file.push('useCache', flag, b, LOOP, x);
  }
}

/**
 * `model.config.use_cache = False` (or True) anywhere in the script: what the training forward builds. A keyword of
 * the kept call (`model(**batch, use_cache=False)`) is read with it, after, and wins.
 */
function configUseCache(file: PythonFile): void {
  walk(
    file.root,
    (n) => {
      if (n.name !== 'AssignStatement') return;
      const target = n.firstChild;
      const rhs = n.lastChild;
      if (target?.name !== 'MemberExpression' || target.nextSibling?.name !== 'AssignOp' || rhs?.name !== 'Boolean')
        return;
      if (!/\.config\.use_cache$/.test(file.text.slice(target.from, target.to))) return;
      const e: Entry = { rawKey: 'use_cache', keySpan: span(target), valueNode: rhs, valueSpan: span(rhs) };
      file.push('useCache', e, file.text.slice(rhs.from, rhs.to) === 'True', LOOP);
    },
    true,
  );
}

/** A call of the model (`model(...)`, `self.model(...)`), or its `.logits`. */
function isModelCall(file: PythonFile, node: SyntaxNode, models: ReadonlySet<string>): boolean {
  let call = node;
  if (node.name === 'MemberExpression') {
    const prop = node.lastChild;
    if (prop?.name !== 'PropertyName' || file.text.slice(prop.from, prop.to) !== 'logits') return false;
    call = node.firstChild!;
  }
  if (call.name !== 'CallExpression') return false;
  const callee = file.calleeName(call);
  return callee !== undefined && (models.has(callee) || callee === 'self.model');
}

function underNoGrad(file: PythonFile, node: SyntaxNode, loop: SyntaxNode): boolean {
  for (let p = node.parent; p && p !== loop; p = p.parent) {
    if (p.name !== 'WithStatement') continue;
    const head = file.text.slice(p.from, p.getChild('Body')?.from ?? p.to);
    if (/\b(no_grad|inference_mode)\s*\(/.test(head)) return true;
  }
  return false;
}

// A project that vendors verl 0.1 (TinyZero and the R1-Zero reproductions built on it: Logic-RL, Search-R1,
// simpleRL-reason, DeepScaleR) runs its own copy: `python3 -m verl.trainer.main_ppo` imports the project's verl/.
// That release counts the global micro-batches in prompts: its fsdp_workers.py divides ppo_micro_batch_size (and the
// log-prob ones) by the GPUs, then multiplies them by rollout.n (Unakar/Logic-RL@9d2c457 verl/workers/
// fsdp_workers.py:95-109), where verl since its *_per_gpu keys divides sequences. The verl reader marks the counts that
// differ with that release's value (Fact.valueInVerl01); here the project's copy is looked for, and where it scales so
// its values are the run's. A project's own copy of verl's SFT trainer config gives the checkpointing and FSDP release
// its launch line does not set (SFT_CONFIG below).
// Pure: file access goes through the FileReader.
import type { FileReader } from '../file-reader';
import type { ConfigFacts, Fact } from '../facts';
import { isMap, isScalar, parseDocument } from 'yaml';

/** Where a project keeps verl's workers: its own package, or a checkout of verl beside it (DeepScaleR's verl/verl/). */
const WORKERS = ['verl/workers/fsdp_workers.py', 'verl/verl/workers/fsdp_workers.py'];
/** The launcher's folder and the folders above it that are searched. */
const UP = ['', '../', '../../', '../../../'];
/** verl 0.1's normalisation: the micro-batch of prompts times the completions of each. */
const SCALES = /ppo_micro_batch_size\s*\*=\s*self\.config\.rollout\.n\b/;

/** The first of a project's files found from the launcher's folder up: its path and text; else undefined. */
function nearest(
  reader: FileReader,
  launcher: string,
  within: readonly string[],
): { path: string; text: string } | undefined {
  for (const up of UP)
    for (const rel of within) {
      const path = reader.join(launcher, `${up}${rel}`);
      const text = reader.read(path);
      if (text !== undefined) return { path, text };
    }
  return undefined;
}

/** The project's verl workers file that counts micro-batches in prompts, from the launcher's folder up; else undefined. */
function vendoredVerl01(reader: FileReader, launcher: string): string | undefined {
  const found = nearest(reader, launcher, WORKERS);
  return found && SCALES.test(found.text) ? found.path : undefined;
}

/**
 * A verl launcher's facts as the project's own verl 0.1 reads them: its counts, its vLLM engine's share, and its
 * actor's checkpointing default.
 */
export function withVendoredVerl(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
  return withVendoredSftConfig(
    reader,
    launcher,
    withVendoredCheckpointing(
      reader,
      launcher,
      withVendoredVllm(reader, launcher, withVerl01Counts(reader, launcher, facts)),
    ),
  );
}

/** Where a project keeps verl's trainer config (its copy of ppo_trainer.yaml). */
const TRAINER_CONFIG = ['verl/trainer/config/ppo_trainer.yaml', 'verl/verl/trainer/config/ppo_trainer.yaml'];

/**
 * The actor's enable_gradient_checkpointing in the project's verl 0.1 trainer config: `False` in TinyZero's
 * (Jiayi-Pan/TinyZero@95df88f verl/trainer/config/ppo_trainer.yaml:19), where verl since defaults it to true. Taken
 * where the launcher sets none, said as that copy's default, at the launch line.
 */
function withVendoredCheckpointing(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
  if (facts.facts.some((f) => f.key === 'gradientCheckpointing')) return facts;
  const anchor = facts.facts.find((f) => f.tool === 'verl');
  if (!anchor || (!vendoredVerl01(reader, launcher) && !vendoredVllm(reader, launcher))) return facts;
  const config = nearest(reader, launcher, TRAINER_CONFIG);
  const actor = config ? config.text.indexOf('actor_rollout_ref:') : -1;
  const m =
    config && actor >= 0
      ? /enable_gradient_checkpointing:\s*(True|False|true|false)\b/.exec(config.text.slice(actor))
      : null;
  if (!config || !m) return facts;
  const name = config.path.split(/[\\/]/).slice(-4).join('/');
  const fact: Fact = {
    key: 'gradientCheckpointing',
    rawKey: 'actor_rollout_ref.model.enable_gradient_checkpointing',
    value: m[1].toLowerCase() === 'true' ? 'full' : 'none',
    rawValue: `enable_gradient_checkpointing=${m[1]} (the project's verl 0.1, ${name})`,
    keySpan: anchor.keySpan,
    valueSpan: anchor.keySpan,
    tool: 'verl',
    origin: 'call-default',
    defaultNote: `the project's own verl sets the actor's enable_gradient_checkpointing: ${m[1]} (${name})`,
  };
  return { ...facts, facts: [...facts.facts, fact] };
}

/** The counts verl 0.1 reads otherwise than verl since its *_per_gpu keys, said in each. */
function withVerl01Counts(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
  if (!facts.facts.some((f) => f.valueInVerl01 !== undefined)) return facts;
  const workers = vendoredVerl01(reader, launcher);
  if (!workers) return facts;
  const name = workers.split(/[\\/]/).slice(-3).join('/');
  const read = (f: Fact): Fact =>
    f.valueInVerl01 === undefined || f.valueInVerl01 === f.value
      ? f
      : {
          ...f,
          value: f.valueInVerl01,
          rawValue: `${f.rawValue}: ${f.valueInVerl01} as the project's verl 0.1 (${name}) counts it, in prompts x rollout.n`,
        };
  return { ...facts, facts: facts.facts.map(read) };
}

/**
 * Where a project keeps verl 0.1's own copies of vLLM's workers: its __init__.py picks one of vllm_v_0_3_1 ...
 * vllm_v_0_6_3 by the installed vLLM, and has no branch for vLLM's own SPMD workers (verl since 0.2: `>= 0.7`).
 */
const VLLM_INIT = ['verl/third_party/vllm/__init__.py', 'verl/verl/third_party/vllm/__init__.py'];

/** The project's vendored vLLM package of verl 0.1, from the launcher's folder up; else undefined. */
function vendoredVllm(reader: FileReader, launcher: string): string | undefined {
  const found = nearest(reader, launcher, VLLM_INIT);
  return found && /vllm_v_0_[3-6]_\d/.test(found.text) && !/0\.7|spmd/i.test(found.text) ? found.path : undefined;
}

/**
 * A verl run whose engine is the project's vendored vLLM 0.x: gpu_memory_utilization is a share of the memory free
 * when the engine starts (its worker.py: `free_gpu_memory * gpu_memory_utilization`), said at the share.
 */
function withVendoredVllm(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
  const share = facts.facts.find((f) => f.key === 'vllmMemoryFraction' && f.tool === 'verl');
  if (!share) return facts;
  const vllm = vendoredVllm(reader, launcher);
  if (!vllm) return facts;
  const name = vllm.split(/[\\/]/).slice(-4, -1).join('/');
  const fact: Fact = {
    key: 'vllmMemoryOf',
    rawKey: share.rawKey,
    value: 'free',
    rawValue:
      `${share.rawValue}: a share of the memory free when the engine starts, as the project's own vLLM workers ` +
      `(${name}, vLLM 0.3.1-0.6.3) size the KV cache`,
    keySpan: share.keySpan,
    valueSpan: share.valueSpan,
    tool: 'verl',
  };
  return { ...facts, facts: [...facts.facts, fact] };
}

/**
 * Where a project keeps verl's SFT trainer config. A project that ships its own verl (NovaSky-AI/SkyThought's
 * skythought-rl/verl) runs `-m verl.trainer.fsdp_sft_trainer` from that copy, whose config gives the defaults the launch
 * line does not override: SkyThought@0d190f1's sft_trainer.yaml turns enable_gradient_checkpointing off and has no
 * model.strategy (its trainer wraps with FullyShardedDataParallel), where verl since defaults to checkpointing and FSDP2.
 */
const SFT_CONFIG = ['verl/trainer/config/sft_trainer.yaml', 'verl/verl/trainer/config/sft_trainer.yaml'];

/** The `model:` block's scalar `name` of the config, if written. */
function modelKey(text: string, name: string): unknown {
  const doc = parseDocument(text);
  const model = isMap(doc.contents) ? doc.contents.get('model', true) : undefined;
  const node = isMap(model) ? model.get(name, true) : undefined;
  return isScalar(node) ? node.value : undefined;
}

/**
 * A verl SFT launch's checkpointing and FSDP release as the project's own verl sets them: the defaults the launch line
 * does not override, replacing verl's current ones.
 */
export function withVendoredSftConfig(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
  const sft = facts.facts.some((f) => f.tool === 'verl' && f.rawKey.startsWith('model.fsdp_config'));
  if (!sft) return facts;
  const config = nearest(reader, launcher, SFT_CONFIG);
  if (!config) return facts;
  const name = config.path.split(/[\\/]/).slice(-4).join('/');
  const launched = (rawKey: string): boolean => facts.facts.some((f) => f.rawKey === rawKey && !isVerlDefault(f));
  const anchor = facts.facts.find((f) => f.tool === 'verl')!;
  const own = (key: Fact['key'], rawKey: string, value: Fact['value'], written: string): Fact => ({
    key,
    rawKey,
    value,
    rawValue: `${rawKey}=${written} (the project's verl, ${name})`,
    keySpan: anchor.keySpan,
    valueSpan: anchor.keySpan,
    tool: 'verl',
    origin: 'call-default',
    defaultNote: `the project's own verl sets ${rawKey}: ${written} (${name})`,
  });
  const added: Fact[] = [];
  const replaced = new Set<string>();
  const checkpointing = modelKey(config.text, 'enable_gradient_checkpointing');
  if (typeof checkpointing === 'boolean' && !launched('model.enable_gradient_checkpointing')) {
    added.push(
      own(
        'gradientCheckpointing',
        'model.enable_gradient_checkpointing',
        checkpointing ? 'full' : 'none',
        String(checkpointing),
      ),
    );
    replaced.add('model.enable_gradient_checkpointing');
  }
  const strategy = modelKey(config.text, 'strategy');
  if (!launched('model.strategy') && (strategy === undefined || strategy === 'fsdp' || strategy === 'fsdp2')) {
    const version = strategy === 'fsdp2' ? 2 : 1;
    const written = strategy === undefined ? 'unset (FullyShardedDataParallel)' : String(strategy);
    added.push(own('fsdpVersion', 'model.strategy', version, written));
    replaced.add('model.strategy');
  }
  if (added.length === 0) return facts;
  const kept = facts.facts.filter((f) => !(replaced.has(f.rawKey) && isVerlDefault(f)));
  return { ...facts, facts: [...kept, ...added] };
}

/** A default the verl reader states for a key the launch line does not give. */
const isVerlDefault = (f: Fact): boolean => f.tool === 'verl' && f.rawValue.endsWith('(verl default)');

// A project that vendors verl 0.1 (TinyZero and the R1-Zero reproductions built on it: Logic-RL, Search-R1,
// simpleRL-reason, DeepScaleR) runs its own copy: `python3 -m verl.trainer.main_ppo` imports the project's verl/.
// That release counts the global micro-batches in prompts: its fsdp_workers.py divides ppo_micro_batch_size (and the
// log-prob ones) by the GPUs, then multiplies them by rollout.n (Unakar/Logic-RL@9d2c457 verl/workers/
// fsdp_workers.py:95-109), where verl since its *_per_gpu keys divides sequences. The verl reader marks the counts that
// differ with that release's value (Fact.valueInVerl01); here the project's copy is looked for, and where it scales so
// its values are the run's.
// Pure: file access goes through the FileReader.
import type { FileReader } from '../file-reader';
import type { ConfigFacts, Fact } from '../facts';

/** Where a project keeps verl's workers: its own package, or a checkout of verl beside it (DeepScaleR's verl/verl/). */
const WORKERS = ['verl/workers/fsdp_workers.py', 'verl/verl/workers/fsdp_workers.py'];
/** The launcher's folder and the folders above it that are searched. */
const UP = ['', '../', '../../', '../../../'];
/** verl 0.1's normalisation: the micro-batch of prompts times the completions of each. */
const SCALES = /ppo_micro_batch_size\s*\*=\s*self\.config\.rollout\.n\b/;

/** The project's verl workers file that counts micro-batches in prompts, from the launcher's folder up; else undefined. */
function vendoredVerl01(reader: FileReader, launcher: string): string | undefined {
  for (const up of UP)
    for (const w of WORKERS) {
      const path = reader.join(launcher, `${up}${w}`);
      const text = reader.read(path);
      if (text !== undefined) return SCALES.test(text) ? path : undefined;
    }
  return undefined;
}

/** A verl launcher's facts as the project's own verl 0.1 reads them: the counts it reads otherwise, said in each. */
export function withVendoredVerl(reader: FileReader, launcher: string, facts: ConfigFacts): ConfigFacts {
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

// A project that ships its own verl (NovaSky-AI/SkyThought's skythought-rl/verl, the TinyZero line) runs
// `-m verl.trainer.fsdp_sft_trainer` from that copy, whose trainer config gives the defaults the launch line does not
// override: SkyThought@0d190f1 skythought-rl/verl/trainer/config/sft_trainer.yaml turns enable_gradient_checkpointing
// off and has no model.strategy (its trainer wraps with FullyShardedDataParallel), where verl since defaults to
// checkpointing and FSDP2. The two keys are read from that copy where the launch line sets neither, said as its
// defaults at the launch line. Pure: file access goes through the FileReader.
import { isMap, isScalar, parseDocument } from 'yaml';
import type { FileReader } from '../file-reader';
import type { ConfigFacts, Fact } from '../facts';

/** Where a project keeps verl's SFT trainer config, from the launcher's folder and the folders above it. */
const SFT_CONFIG = ['verl/trainer/config/sft_trainer.yaml', 'verl/verl/trainer/config/sft_trainer.yaml'];
const UP = ['', '../', '../../', '../../../', '../../../../'];

/** The project's copy of sft_trainer.yaml nearest the launcher: its path and text; else undefined. */
function vendoredSftConfig(reader: FileReader, launcher: string): { path: string; text: string } | undefined {
  for (const up of UP)
    for (const rel of SFT_CONFIG) {
      const path = reader.join(launcher, `${up}${rel}`);
      const text = reader.read(path);
      if (text !== undefined) return { path, text };
    }
  return undefined;
}

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
  const config = vendoredSftConfig(reader, launcher);
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

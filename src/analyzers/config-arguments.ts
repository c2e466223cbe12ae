// The config file a training script's parser reads its options from: TrlParser.parse_args_and_config loads the file
// `--config` names with yaml.safe_load and sets each of its top-level keys on the dataclass field of that name, where
// the launch line left the field alone (trl 0.8 trl/commands/cli_utils.py YamlConfigParser.merge_dataclasses; from
// 0.13 trl/scripts/utils.py, the keys become the parser's defaults, so the launch line's options still win). A key no
// dataclass has sets nothing. The keys are therefore the script's options, below the launch line's. Pure.
import { wordBool, type LaunchArgument } from './facts';
import { YamlCtx } from './yaml/common';

/** The option of the launch line that names the config file. */
export const CONFIG_OPTION = 'config';

/** The config file's top-level scalar keys as options of the script: numbers, switches and text, as written. */
export function configFileArguments(text: string, fileName: string): LaunchArgument[] {
  const ctx = new YamlCtx(text, { format: 'hf-yaml', tool: 'hf-trainer', omegaconf: false });
  const out: LaunchArgument[] = [];
  for (const [name, entry] of ctx.top()) {
    const v = ctx.view(entry);
    // PyYAML reads plain yes / no / on / off as booleans too (YAML 1.1).
    const switched =
      v.t === 'bool' ? v.v : v.t === 'str' && v.plain && /^(yes|no|on|off)$/i.test(v.v) ? wordBool(v.v) : undefined;
    if (switched !== undefined) out.push({ name, value: switched ? 'True' : 'False', from: fileName });
    else if (v.t === 'str' || v.t === 'num') out.push({ name, value: String(v.v), from: fileName });
  }
  return out;
}

// A dataclass field whose `__post_init__` splits it into a list: `self.lora_target = [target.strip() for target in
// self.lora_target.split(",")]` (hiyouga/ChatGLM-Efficient-Tuning's FinetuningArguments and LLaMA-Factory's; the
// field is written `lora_target: str = field(default="query_key_value")`). What the run holds is the list of the
// string's parts, the launch line's value too (HfArgumentParser hands the string to the class, whose __post_init__
// splits it): a LoRA `target_modules` list that PEFT matches by suffix, not one string it reads as a regular expression.
// Pure.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile } from './file';

/** The fields of a class its `__post_init__` splits into lists, by the separator each is split on. */
export function postInitSplits(file: PythonFile, cls: SyntaxNode): Map<string, string> {
  const out = new Map<string, string>();
  const post = cls
    .getChild('Body')
    ?.getChildren('FunctionDefinition')
    .find((fn) => {
      const id = fn.getChild('VariableName');
      return id !== null && file.text.slice(id.from, id.to) === '__post_init__';
    });
  if (!post) return out;
  post.cursor().iterate((n) => {
    if (n.name !== 'AssignStatement') return;
    const text = file.text.slice(n.from, n.to).replace(/\s+/g, ' ');
    const m = SPLIT.exec(text);
    if (m && m[1] === m[2]) out.set(m[1], m[4]);
  });
  return out;
}

/**
 * `self.x = self.x.split(",")`, `self.x = [t.strip() for t in self.x.split(",")]`, `self.x = list(map(str.strip,
 * self.x.split(",")))`: the field (1), the field it splits (2) and the separator (4).
 */
const SPLIT =
  /^self\.(\w+) ?= ?(?:\[ ?\w+(?:\.strip\(\))? for \w+ in |list\( ?map\( ?str\.strip ?, ?)?self\.(\w+)\.split\( ?(["'])(.*?)\3 ?\)/;

/** A value of a split field as the run holds it: a string's parts, trimmed, the empty ones left out. */
export function splitValue<T>(value: T | string, sep: string | undefined): T | string | string[] {
  if (sep === undefined || typeof value !== 'string') return value;
  return value
    .split(sep)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

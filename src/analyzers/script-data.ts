// A JSON / YAML file a script loads for its values (hf-python/data-files.ts), as a file of the script's run: each item
// the script takes as written (Fact.fromData) is a fact of this file, located at its key, so that the editor shows the
// run at the file's keys, the run's provenance names the key and its line, and a fix edits the value where it is
// written. Which key means what is the script's reading: the facts come from the script's (its key names what the value
// is to the script; Fact.fromData the item), the places from this text.
// Pure; never throws on user text.
// Docs: docs/formats.md (Python scripts)
import { isMap, isScalar, type Node } from 'yaml';
import { emptyFacts, type ConfigFacts, type Fact, type Span } from './facts';
import { findReference, foundAboveAs, type FileReader } from './file-reader';
import type { InputFile } from './pipeline';
import type { AnalyzedFile } from './resolve';
import { notAnalyzed } from './guards';
import { parseYaml } from './yaml-parse';

/** Where an item is written: its key, its value, and the value's text. */
interface Placed {
  readonly keySpan: Span;
  readonly valueSpan: Span;
  readonly rawValue: string;
}

/**
 * The facts of a loaded file: those of `items` (the facts of the scripts that load it) that come from `dataPath` as the
 * script writes it, each located at its key in `text`. An item the text does not have where the script found it (the
 * file changed since) is left to the script.
 */
export function scriptDataFacts(text: string, items: readonly Fact[], dataPath: string): ConfigFacts {
  const refused = notAnalyzed(text, 'yaml');
  if (refused) return { ...emptyFacts('script-data'), problems: [refused] };
  let root: Node | null;
  try {
    const doc = parseYaml(text);
    if (doc.errors.length > 0) return emptyFacts('script-data');
    root = doc.contents;
  } catch {
    return emptyFacts('script-data');
  }
  const facts: Fact[] = [];
  for (const f of items) {
    if (f.fromData?.path !== dataPath) continue;
    const at = placeOf(root, f.fromData.keys, text);
    if (!at) continue;
    // The script's key stays the fact's (what the value is to the script: from_pretrained's model, LoraConfig's r).
    facts.push({ ...f, ...at });
  }
  return { ...emptyFacts('script-data'), facts };
}

/** The key and scalar value at `keys` in a mapping of mappings; undefined where the path leads elsewhere. */
function placeOf(root: Node | null, keys: readonly string[], text: string): Placed | undefined {
  let node: unknown = root;
  let keySpan: Span | undefined;
  for (const k of keys) {
    if (!isMap(node)) return undefined;
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === k);
    if (!pair || !isScalar(pair.key) || !pair.key.range) return undefined;
    keySpan = { start: pair.key.range[0], end: pair.key.range[1] };
    node = pair.value;
  }
  const range = (node as Node | null)?.range;
  if (!keySpan || !range) return undefined;
  const valueSpan = { start: range[0], end: range[1] };
  return { keySpan, valueSpan, rawValue: text.slice(valueSpan.start, valueSpan.end) };
}

/**
 * A JSON / YAML file a script loads, as a file of the script's run: the items the script takes as written, located at
 * their keys (script-data.ts), with the script's role. Its text is the input's where it is one (an edited document).
 */
export function scriptDataFile(
  reader: FileReader,
  inputs: readonly InputFile[],
  script: AnalyzedFile,
  path: string,
): AnalyzedFile | undefined {
  const found = findReference(reader, script.file, path, 'project-data');
  if (found.above && !foundAboveAs(path, true)) return undefined;
  const input = inputs.find((i) => i.file === found.path);
  const text = input?.text ?? found.text;
  if (text === undefined) return undefined;
  const facts = scriptDataFacts(text, script.facts.facts, path);
  if (facts.facts.length === 0) return undefined;
  return { file: input?.file ?? found.path, text, role: script.role, facts };
}

/**
 * Adds a loaded data file right after the file that loads it (a tie goes to the later file: the data file's item over
 * the script's read of it); a second loader's items join the first's. A file read as a config of its own stays that.
 */
export function addScriptData(files: AnalyzedFile[], seen: Set<string>, data: AnalyzedFile | undefined): void {
  if (!data) return;
  const at = files.findIndex((f) => f.file === data.file);
  if (at < 0) {
    seen.add(data.file);
    files.push(data);
    return;
  }
  const prev = files[at];
  if (prev.facts.format !== 'script-data') return;
  files[at] = { ...prev, facts: { ...prev.facts, facts: [...prev.facts.facts, ...data.facts.facts] } };
}

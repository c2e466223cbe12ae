// A Hydra application's config (`@hydra.main(config_path="config", config_name="train")` over `def main(cfg)`): the
// primary config composed with the options its defaults list chooses (hydra/compose.ts, Hydra 1.3's rules), read
// through the pipeline's reader from the folder config_path names beside the script, as the data the function's first
// parameter holds (`cfg.model.name`, `cfg["training"]["lr"]`, `cfg.lora.get("r", 8)`). Each value is said to come from
// the file that writes it, at its keys there, so the editor shows the run there and a fix edits it there; each file read
// is a file of the script's run. `${a.b}` interpolations of another value are followed; other interpolations, package
// overrides and structured configs are not. Pure: files come through `file.readModule`.
// Docs: docs/formats.md (Python scripts)
import type { SyntaxNode } from '@lezer/common';
import { composeHydra, type ComposedValue, type HydraFile } from '../hydra/compose';
import { knownHydraApplication } from '../hydra';
import type { View } from '../yaml/values';
import { detectYamlFormat } from '../yaml/detect';
import type { FactValue } from '../facts';
import type { PythonFile } from './file';
import type { DataOrigin, Val } from './static-values';
import { insideProject } from './data-files';
import { parameters, span } from './syntax';

/** A Hydra application's entry point: `@hydra.main(` in a file's text. */
const HYDRA_MAIN = /@\s*hydra\s*\.\s*main\s*\(/;

/** Whether a text has a Hydra entry point (HYDRA_MAIN), looking for the name first: most texts never say it. */
export const hasHydraMain = (text: string): boolean => text.includes('hydra') && HYDRA_MAIN.test(text);

/** The composed config the first parameter of a `@hydra.main` function holds; undefined for any other parameter. */
export function hydraConfig(file: PythonFile, fn: SyntaxNode, param: string): Val | undefined {
  if (!file.readModule || fn.name !== 'FunctionDefinition') return undefined;
  const main = hydraMain(file, fn);
  if (!main || parameters(file.text, fn.getChild('ParamList'))[0]?.name !== param) return undefined;
  const key = `${main.dir}/${main.name}`;
  if (!file.hydraConfigs.has(key)) file.hydraConfigs.set(key, composed(file, main) ?? null);
  return file.hydraConfigs.get(key) ?? undefined;
}

/** The file's `@hydra.main` entry point at its top level, with its config folder and primary config's name. */
export function hydraEntryPoint(file: PythonFile): HydraMain | undefined {
  if (!hasHydraMain(file.text)) return undefined;
  for (let st = file.root.firstChild; st; st = st.nextSibling) {
    const fn = st.name === 'DecoratedStatement' ? st.getChild('FunctionDefinition') : null;
    const main = fn ? hydraMain(file, fn) : undefined;
    if (main) return main;
  }
  return undefined;
}

export interface HydraMain {
  /** The config directory as the script names it, relative to the script's folder ('' for the folder itself). */
  readonly dir: string;
  /** The primary config's name, without `.yaml`. */
  readonly name: string;
  /** The decorator, where what it names is said. */
  readonly at: SyntaxNode;
}

/** The `@hydra.main(config_path=..., config_name=...)` decorating a function, with both known statically. */
function hydraMain(file: PythonFile, fn: SyntaxNode): HydraMain | undefined {
  const decorated = fn.parent;
  if (decorated?.name !== 'DecoratedStatement') return undefined;
  for (let d = decorated.firstChild; d && d.name === 'Decorator'; d = d.nextSibling) {
    // The decorator's own ArgList (`@hydra.main(...)` parses as `@`, the name and its arguments).
    if (!HYDRA_MAIN.test(file.text.slice(d.from, d.to)) || !d.getChild('ArgList')) continue;
    const args = file.args(d);
    const text = (k: string): string | undefined => {
      const e = args.entries.find((x) => x.rawKey === k);
      const v = e ? file.valueOf(e) : undefined;
      return v?.k === 'lit' && typeof v.v === 'string' ? v.v : undefined;
    };
    const dir = text('config_path')
      ?.replace(/^\.\/+/, '')
      .replace(/\/+$/, '');
    const name = text('config_name')?.replace(/\.ya?ml$/, '');
    return dir !== undefined && name ? { dir: dir === '.' ? '' : dir, name, at: d } : undefined;
  }
  return undefined;
}

/** The composition as data, each value's file and keys kept; unknown when the primary config is not in the project. */
function composed(file: PythonFile, main: HydraMain): Val | undefined {
  const place = (relative: string): string => (main.dir ? `${main.dir}/${relative}` : relative);
  const read = (relative: string): HydraFile | undefined => {
    const path = place(relative);
    if (!insideProject(path)) return undefined;
    const found = file.readModule?.(path, 'data');
    return found ? { path, text: found.text } : undefined;
  };
  const primary = read(`${main.name}.yaml`);
  if (!primary) return { k: 'unknown', reason: `the Hydra config ${place(main.name)}.yaml is not in the project` };
  // The applications the pipeline composes by their own rules (the DPO reference implementation, HALOs, RL2).
  const ownRules = detectYamlFormat(primary.text, primary.path) === 'hydra-yaml';
  if (ownRules && knownHydraApplication(primary, file.hydraOverrides, read)) return undefined;
  // Read again with the launch line's overrides (`model=llama training.lr=1e-4`), which it may give.
  if (!file.settled) file.readsLaunchOptions = true;
  const c = composeHydra(primary, file.hydraOverrides, read);
  const files = new Set(c.files.map((f) => f.path));
  for (const f of c.files)
    if (!file.references.some((r) => r.kind === 'data' && r.path === f.path))
      file.references.push({ kind: 'data', path: f.path, span: span(main.at) });
  const value: Record<string, unknown> = {};
  const origins = new Map<string, DataOrigin>();
  for (const [dotted, v] of c.values) {
    const lit = literalOf(v.view, c.values);
    if (lit === undefined) continue;
    placeAt(value, dotted.split('.'), lit);
    // A value the launch line sets is written there, not in a file of the config.
    if (files.has(v.file)) origins.set(dotted, originOf(v));
  }
  return { k: 'data', value, source: primary.path, path: primary.path, keys: [], origins };
}

/** Where a composed value is written: its file and its keys there. */
function originOf(v: ComposedValue): DataOrigin {
  return { path: v.file, keys: (v.inFile ?? v.path).split('.') };
}

/** A scalar, or a list of strings, as a fact value; `${a.b}` of another composed value followed (a few hops). */
function literalOf(view: View, values: ReadonlyMap<string, ComposedValue>, hops = 0): FactValue | undefined {
  switch (view.t) {
    case 'num':
    case 'bool':
      return view.v;
    case 'str': {
      const ref = /^\$\{\s*([\w.-]+)\s*\}$/.exec(view.v);
      if (!ref) return /\$\{/.test(view.v) ? undefined : view.v;
      const target = values.get(ref[1]);
      return target && hops < 4 ? literalOf(target.view, values, hops + 1) : undefined;
    }
    case 'seq': {
      const items = view.items.map((x) => (x.t === 'str' ? x.v : undefined));
      return items.every((x) => x !== undefined) ? (items as string[]) : undefined;
    }
    default:
      return undefined;
  }
}

/** Sets `keys` in a nested object, making the mappings on the way (a scalar in the way is replaced). */
function placeAt(root: Record<string, unknown>, keys: readonly string[], v: FactValue): void {
  let node = root;
  for (const k of keys.slice(0, -1)) {
    const next = node[k];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) node[k] = {};
    node = node[k] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]] = v;
}

// Hydra's config composition (hydra-core 1.3, hydra/_internal/defaults_list.py and config_loader_impl.py) for the Hydra
// applications VRAM Lens reads (hydra/dpo.ts): the primary config, the option of each config group its defaults list
// chooses (or the command line, `model=pythia28`), composed in the list's order with the primary's own keys where
// `_self_` stands (last when it is not listed), then the command line's `key=value` overrides. Every value keeps the
// file and the place it is written at; an override is placed at the key it replaces. Kept of Hydra's rules: group
// options as `<group>/<option>.yaml` under the config directory, packaged under the group's name (`# @package
// _global_` at the root); a group option's own defaults (`- base_model`: an option of the same group, composed before
// it); `optional` entries; `???` as a value that must be given; `null` as no option; `${group}` as the option of a
// group listed before it. Not kept: package overrides (`group@pkg`), config search paths, structured configs. Pure:
// files come through `read`.
import { isMap, isScalar, isSeq, type Node } from 'yaml';
import { msg, type LaunchArgument, type ParseProblem, type Span } from '../facts';
import { YamlCtx } from '../yaml/common';
import type { Entry, View } from '../yaml/values';

/** A file of the composition: its path as the reader found it and its text. */
export interface HydraFile {
  readonly path: string;
  readonly text: string;
}

/** A file of the config directory by its path relative to that directory (`model/pythia28.yaml`), or undefined. */
export type HydraRead = (relative: string) => HydraFile | undefined;

/** One composed value: its dotted key, its value, and where it is written (the key an override replaces). */
export interface ComposedValue {
  readonly path: string;
  readonly view: View;
  readonly file: string;
  readonly keySpan: Span;
  readonly valueSpan: Span;
  /** The key as written: its path in the file, or `loss.beta (launch line)`. */
  readonly rawKey: string;
  readonly rawValue: string;
  /** The key's path within its file (without the group's package), where a file writes it. */
  readonly inFile?: string;
}

/** A config group's option in the composition, and the defaults entry that names the group. */
export interface GroupChoice {
  readonly option: string | null;
  readonly file: string;
  readonly span: Span;
}

/** A problem of the composition, in the file it is about. */
export interface LocatedProblem {
  readonly file: string;
  readonly problem: ParseProblem;
}

export interface Composition {
  readonly values: ReadonlyMap<string, ComposedValue>;
  /** The option each group was composed with (null: none or `???`), and the defaults entry that names the group. */
  readonly groups: ReadonlyMap<string, GroupChoice>;
  readonly problems: readonly LocatedProblem[];
  /** Every file read, the primary first. */
  readonly files: readonly HydraFile[];
}

const CTX = { format: 'hydra-yaml', tool: 'dpo-reference', omegaconf: true } as const;
/** Group options nested in each other's defaults beyond this are not followed (Hydra refuses cycles). */
const MAX_NESTING = 8;
/** Values of one file flattened beyond this nesting are left out. */
const MAX_VALUE_DEPTH = 12;

/** One entry of a defaults list: `_self_`, a group and its option, or (in a group option) another option of its group. */
type DefaultsItem =
  | { readonly kind: 'self' }
  | { readonly kind: 'group'; readonly group: string; readonly option: string | null; readonly span: Span }
  | { readonly kind: 'sibling'; readonly option: string; readonly span: Span };

/** The state of one composition. */
class Composer {
  readonly values = new Map<string, ComposedValue>();
  readonly groups = new Map<string, GroupChoice>();
  readonly problems: LocatedProblem[] = [];
  readonly files: HydraFile[] = [];

  constructor(
    private readonly read: HydraRead,
    /** The command line's choices of group options (`model=pythia28`). */
    private readonly chosen: ReadonlyMap<string, string | null>,
  ) {}

  problem(file: string, span: Span, code: ParseProblem['code'], message: ReturnType<typeof msg>): void {
    this.problems.push({ file, problem: { code, severity: 'warning', span, ...message } });
  }

  /** A config file with the options its defaults list names, in Hydra's order, its values under `pkg`. */
  compose(file: HydraFile, pkg: string, group: string | undefined, depth: number, parsed?: YamlCtx): void {
    this.files.push(file);
    const ctx = parsed ?? new YamlCtx(file.text, CTX);
    for (const p of ctx.problems) this.problems.push({ file: file.path, problem: p });
    const top = ctx.top();
    const items = defaultsItems(ctx, top.get('defaults'));
    const ownPkg = /^#\s*@package\s+_global_\s*$/m.test(file.text.slice(0, 2000)) ? '' : pkg;
    const own = (): void => this.take(ctx, file.path, top, ownPkg);
    if (!items.some((x) => x.kind === 'self')) items.push({ kind: 'self' });
    for (const item of items) {
      if (item.kind === 'self') own();
      else if (item.kind === 'sibling' && group !== undefined) this.option(file, group, item.option, item.span, depth);
      else if (item.kind === 'group') {
        const option = this.chosen.has(item.group) ? this.chosen.get(item.group)! : this.choiceOf(item.option);
        this.groups.set(item.group, { option: option === '???' ? null : option, file: file.path, span: item.span });
        if (option === '???') {
          const m = msg("no option of the config group '{0}' is chosen (???): pass {0}=<option>", item.group);
          this.problem(file.path, item.span, 'not-static', m);
        } else if (option !== null) this.option(file, item.group, option, item.span, depth);
      }
    }
  }

  /**
   * An option as the defaults list writes it; `${group}` is the option chosen for another group listed before it
   * (RL2's `- ref_actor: ${actor}`), as Hydra interpolates defaults lists.
   */
  private choiceOf(option: string | null): string | null {
    const m = option === null ? null : /^\$\{\s*([\w-]+)\s*\}$/.exec(option);
    if (!m) return option;
    return this.chosen.has(m[1]) ? this.chosen.get(m[1])! : (this.groups.get(m[1])?.option ?? null);
  }

  /** The option `group/option.yaml`, composed under the group's name. */
  private option(from: HydraFile, group: string, option: string, span: Span, depth: number): void {
    if (depth >= MAX_NESTING) return;
    const found = this.read(`${group}/${option}.yaml`);
    if (!found) {
      const m = msg("the config group '{0}' has no option '{1}' ({0}/{1}.yaml)", group, option);
      this.problem(from.path, span, 'reference-not-found', m);
      return;
    }
    // Hydra refuses a config that appears twice in the defaults list (ConfigCompositionException).
    if (this.files.some((f) => f.path === found.path)) {
      const m = msg(
        '{0}/{1} appears more than once in the defaults list, which Hydra refuses: read once',
        group,
        option,
      );
      this.problem(from.path, span, 'invalid-value', m);
      return;
    }
    this.compose(found, group, group, depth + 1);
  }

  /** A file's own values (every scalar and list under its mappings), `defaults` left out, over the earlier ones. */
  private take(ctx: YamlCtx, file: string, entries: ReadonlyMap<string, Entry>, pkg: string, depth = 0): void {
    if (depth > MAX_VALUE_DEPTH) return;
    for (const e of entries.values()) {
      if (depth === 0 && e.key === 'defaults') continue;
      const view = ctx.view(e);
      const path = pkg ? `${pkg}.${e.path}` : e.path;
      if (view.t === 'map') {
        this.take(ctx, file, ctx.sub(e), pkg, depth + 1);
        continue;
      }
      const rawValue = ctx.text.slice(e.valueSpan.start, e.valueSpan.end);
      const written = { keySpan: e.keySpan, valueSpan: e.valueSpan, rawKey: path, rawValue, inFile: e.path };
      this.values.set(path, { path, view, file, ...written });
    }
  }

  /**
   * The command line's `key=value` overrides, each where the launcher writes it when that is known (`launcher`, the
   * argument's `at`), else at the key it replaces (else where the primary starts).
   */
  override(args: readonly LaunchArgument[], primary: string, launcher: string | undefined): void {
    for (const a of args) {
      if (this.chosen.has(a.name) || a.value === undefined) continue;
      const before = this.values.get(a.name);
      const at: Span = before ? before.valueSpan : { start: 0, end: 0 };
      const view: View =
        a.value === null
          ? { t: 'unknown', reason: `${a.name} is set on the launch line from a value not known statically` }
          : cliView(a.value);
      if (launcher !== undefined && a.at) {
        const { key, value } = a.at;
        const rawValue = a.value ?? '';
        this.values.set(a.name, {
          path: a.name,
          view,
          file: launcher,
          keySpan: key,
          valueSpan: value,
          rawKey: a.name,
          rawValue,
        });
        continue;
      }
      this.values.set(a.name, {
        path: a.name,
        view,
        file: before?.file ?? primary,
        keySpan: before ? before.keySpan : at,
        valueSpan: at,
        rawKey: `${a.name} (launch line)`,
        rawValue: a.value ?? '',
      });
    }
  }
}

/** The entries of a defaults list, in order; entries VRAM Lens does not follow (`group@pkg`, `override`) left out. */
function defaultsItems(ctx: YamlCtx, e: Entry | undefined): DefaultsItem[] {
  const node = e?.node;
  if (!node || !isSeq(node)) return [];
  const out: DefaultsItem[] = [];
  for (const item of node.items as (Node | null)[]) {
    if (!item) continue;
    const span = ctx.nodeSpan(item);
    if (isScalar(item)) {
      const name = String(item.value ?? '').trim();
      if (name === '_self_') out.push({ kind: 'self' });
      else if (name) out.push({ kind: 'sibling', option: name.replace(/\.yaml$/, ''), span });
      continue;
    }
    if (!isMap(item) || item.items.length !== 1) continue;
    const pair = item.items[0];
    const key = isScalar(pair.key) ? String(pair.key.value ?? '') : '';
    const m = /^(?:optional\s+)?\/?([\w-]+)$/.exec(key.trim());
    if (!m) continue;
    const v = pair.value as Node | null;
    const option = v === null || (isScalar(v) && v.value === null) ? null : isScalar(v) ? String(v.value) : undefined;
    if (option === undefined) continue;
    out.push({ kind: 'group', group: m[1], option: option === null ? null : option.replace(/\.yaml$/, ''), span });
  }
  return out;
}

/**
 * The group options a config's defaults list names as files (`- actor: fsdp` is `actor/fsdp.yaml`), at their entries:
 * what the config reads beside it. An option given by interpolation (`${actor}`) or `???` names no file here.
 */
export function defaultsOptionFiles(text: string): { readonly path: string; readonly span: Span }[] {
  const ctx = new YamlCtx(text, CTX);
  return defaultsItems(ctx, ctx.top().get('defaults')).flatMap((x) =>
    x.kind === 'group' && x.option !== null && /^[\w.-]+$/.test(x.option) && x.option !== '???'
      ? [{ path: `${x.group}/${x.option}.yaml`, span: x.span }]
      : [],
  );
}

/** A command-line value as Hydra's override grammar reads it: null, a boolean, a number, a list or a string. */
function cliView(text: string): View {
  const t = text.trim();
  if (t === 'null') return { t: 'absent' };
  if (/^(true|false)$/i.test(t)) return { t: 'bool', v: t.toLowerCase() === 'true' };
  if (/^[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return { t: 'num', v: Number(t.replace(/_/g, '')) };
  if (/^\[.*\]$/.test(t))
    return {
      t: 'seq',
      items: t
        .slice(1, -1)
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '')
        .map((x) => cliView(x)),
    };
  const quoted = /^(['"])(.*)\1$/.exec(t);
  return { t: 'str', v: quoted ? quoted[2] : t, plain: !quoted };
}

/**
 * The composition of a Hydra application's config: `primary` with the command line's `overrides` (group choices and
 * values). A group choice is an override whose name is a group of the primary's defaults list; the others set values.
 */
export function composeHydra(
  primary: HydraFile,
  overrides: readonly LaunchArgument[],
  read: HydraRead,
  launcher?: string,
): Composition {
  const head = new YamlCtx(primary.text, CTX);
  const groupNames = new Set(
    defaultsItems(head, head.top().get('defaults')).flatMap((x) => (x.kind === 'group' ? [x.group] : [])),
  );
  const chosen = new Map<string, string | null>();
  for (const a of overrides) {
    if (typeof a.value !== 'string' || a.name.includes('.')) continue;
    if (groupNames.has(a.name) || read(`${a.name}/${a.value}.yaml`))
      chosen.set(a.name, a.value === 'null' ? null : a.value.replace(/\.yaml$/, ''));
  }
  const c = new Composer(read, chosen);
  c.compose(primary, '', undefined, 0, head);
  c.override(overrides, primary.path, launcher);
  return { values: c.values, groups: c.groups, problems: c.problems, files: c.files };
}

// The workspace index of runs: which file references which (a launcher its script and its Accelerate, DeepSpeed or
// YAML configs; a script its DeepSpeed JSON and the project modules it imports; an Accelerate config its DeepSpeed
// config), kept current as files change,
// so that every file of a run is analyzed with the run's entry files and shows the run's estimate. Built in the
// background in small slices (the server keeps answering); until it is complete, the files beside a document that name
// it stand in. A file reached from several entry files belongs to several runs: the user picks one.
import * as path from 'node:path';
import { detectFormat } from '../analyzers/detect';
import { textRunsOnCpu } from '../analyzers/shell/visible';
import { filesReferencedBy, runsModuleEntry } from '../node/launchers';
import type { InputFile } from '../analyzers/pipeline';
import { candidates } from '../node/candidates';
import { impliedRunOf, optionNaming, takesConfigOption, type ImpliedRun } from '../node/config-readers';
import type { Workspace } from './workspace';

/** Files analyzed per slice of the background scan. */
const SLICE = 40;

export interface Run {
  /** The entry file: a file of the run that no other file references (usually the launcher). */
  readonly entry: string;
  /** Files to give the pipeline besides the document: the entry (it follows the references down from there). */
  readonly inputs: readonly InputFile[];
}

export class RunIndex {
  /** Each scanned file and the files it references (absolute paths). */
  private readonly refs = new Map<string, readonly string[]>();
  private pending: string[] = [];
  private complete = false;
  private scanning = false;
  /** The entry the user chose for a file that belongs to several runs. */
  private readonly choices = new Map<string, string>();
  /** For a YAML / JSON file no other file references: the run of the script that takes configs like it, or null. */
  private readonly implied = new Map<string, ImpliedRun | null>();
  /** The Python scripts the scan found declaring a `--config`-like option: those an unnamed YAML is offered to. */
  private readonly configScripts = new Set<string>();

  constructor(
    private readonly workspace: Workspace,
    /** Called when the index changed in a way that can change analyses (the scan finished, references moved). */
    private readonly onChanged: () => void,
  ) {}

  get ready(): boolean {
    return this.complete;
  }

  /** Starts (or restarts) the background scan of the workspace folders. */
  rebuild(): void {
    this.refs.clear();
    this.implied.clear();
    this.configScripts.clear();
    this.pending = this.workspace.roots.flatMap((root) => candidates(root));
    this.complete = false;
    this.scheduleScan();
  }

  /** A file changed, appeared or disappeared: its references are read again. */
  update(file: string): void {
    // A script or launcher that changed may now take (or no longer take) a config no file names.
    if (!/\.(ya?ml|json)$/i.test(file)) this.implied.clear();
    const before = JSON.stringify(this.refs.get(file) ?? null);
    const now = this.referencesOf(file);
    if (now === undefined) this.refs.delete(file);
    else this.refs.set(file, now);
    if (this.complete && JSON.stringify(now ?? null) !== before) this.onChanged();
  }

  choose(file: string, entry: string): void {
    this.choices.set(file, entry);
  }

  /**
   * The runs a file belongs to, one per entry file; for a YAML or JSON file that no other file references and no
   * format reads alone, the run of the script that takes configs like it (node/config-readers.ts), if one reads it.
   */
  runsOf(file: string): Run[] {
    // A run that trains on the CPU (a debug launcher) after those on GPUs: the first is the one shown.
    const all = this.entriesOf(file);
    const entries = [...all.filter((e) => !this.onCpu(e)), ...all.filter((e) => this.onCpu(e))];
    const runs = entries.map((entry) => ({ entry, inputs: this.inputsFor(entry, file) }));
    // A script that only scripts importing it reach, none of which runs its main block, is first its own run.
    if (entries.length > 0 && this.runsItself(file)) return [{ entry: file, inputs: this.inputsFor(file) }, ...runs];
    if (entries.length > 0) return runs;
    const implied = this.impliedRunOf(file);
    if (!implied) return [];
    const inputs = implied.inputs.map((i) => ({ ...i, text: this.workspace.currentText(i.file) ?? i.text }));
    return [{ entry: implied.entry, inputs }];
  }

  /** An entry that launches on the CPU, or whose Accelerate config asks for it (shell/visible.ts textRunsOnCpu). */
  private onCpu(entry: string): boolean {
    return [entry, ...(this.refs.get(entry) ?? [])].some((f) => {
      const text = this.workspace.currentText(f);
      return text !== undefined && textRunsOnCpu(text);
    });
  }

  /** A Python script whose direct referrers are all scripts that import it without running its main block. */
  private runsItself(file: string): boolean {
    const text = /\.py$/i.test(file) ? this.workspace.currentText(file) : undefined;
    const parents = this.parentsIndex().get(file) ?? [];
    if (text === undefined || parents.length === 0) return false;
    return parents.every((p) => {
      const importer = /\.py$/i.test(p) ? this.workspace.currentText(p) : undefined;
      return importer !== undefined && !runsModuleEntry(file, text, importer);
    });
  }

  private impliedRunOf(file: string): ImpliedRun | undefined {
    const text = /\.(ya?ml|json)$/i.test(file) ? this.workspace.currentText(file) : undefined;
    // A file no format reads, a project's config read by its names alone, or training arguments no file names (an
    // HfArgumentParser JSON): the script that reads it is truer.
    const format = text === undefined ? undefined : detectFormat(file, text);
    if (text === undefined || (format !== undefined && format !== 'project-yaml' && format !== 'hf-yaml'))
      return undefined;
    let found = this.implied.get(file);
    if (found === undefined) {
      const cwd = this.workspace.cwdOf(file);
      const scripts = [...this.configScripts].filter((f) => f.startsWith(cwd + path.sep)).sort();
      const parents = this.parentsIndex();
      const launchersOf = (script: string): string[] => [...(parents.get(script) ?? [])].sort();
      found = impliedRunOf(file, cwd, this.workspace.reader(cwd), { scripts, launchersOf }) ?? null;
      this.implied.set(file, found);
    }
    return found ?? undefined;
  }

  /** The run the analysis of a file follows: the chosen one, else the first (on GPUs before on the CPU, in path order). */
  runFor(file: string): Run | undefined {
    const runs = this.runsOf(file);
    const chosen = this.choices.get(file);
    return runs.find((r) => r.entry === chosen) ?? runs[0];
  }

  /**
   * The entry as the run of `file` gives it: a script whose option's default names the file runs with that option set
   * (node/config-readers.ts optionNaming), not with a command of its README that names another file.
   */
  private inputsFor(entry: string, file?: string): InputFile[] {
    const text = this.workspace.currentText(entry);
    if (text === undefined) return [];
    const reader = this.workspace.reader(this.workspace.cwdOf(entry));
    const args = file !== undefined && /\.py$/i.test(entry) ? optionNaming(entry, text, file, reader) : undefined;
    return [{ file: entry, text, ...(args ? { args } : {}) }];
  }

  /** Entry files above a file: walk the reverse references up to files nobody references (cycles stop). */
  private entriesOf(file: string): string[] {
    const parents = this.parentsIndex();
    const entries = new Set<string>();
    const seen = new Set<string>([file]);
    const queue = [...(parents.get(file) ?? [])];
    while (queue.length > 0) {
      const f = queue.shift()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const up = parents.get(f) ?? [];
      if (up.every((p) => seen.has(p))) entries.add(f);
      queue.push(...up);
    }
    return [...entries].sort();
  }

  private parentsIndex(): Map<string, string[]> {
    const parents = new Map<string, string[]>();
    for (const [from, targets] of this.refs) for (const t of targets) parents.set(t, [...(parents.get(t) ?? []), from]);
    return parents;
  }

  /** The files a file references, resolved against it; undefined when it is not a config VRAM Lens reads. */
  private referencesOf(file: string): string[] | undefined {
    const text = this.workspace.currentText(file);
    if (/\.py$/i.test(file) && text !== undefined && takesConfigOption(text)) this.configScripts.add(file);
    else this.configScripts.delete(file);
    if (text === undefined) return undefined;
    // The pipeline's lookup: beside the file, then from the folders above it (a script run from the repository root).
    return filesReferencedBy(this.workspace.reader(this.workspace.cwdOf(file)), file, text);
  }

  private scheduleScan(): void {
    if (this.scanning) return;
    this.scanning = true;
    setImmediate(() => this.scanSlice());
  }

  private scanSlice(): void {
    for (const file of this.pending.splice(0, SLICE)) {
      const refs = this.referencesOf(file);
      if (refs && refs.length > 0) this.refs.set(file, refs);
    }
    if (this.pending.length > 0) {
      setImmediate(() => this.scanSlice());
      return;
    }
    this.scanning = false;
    this.complete = true;
    this.onChanged();
  }
}

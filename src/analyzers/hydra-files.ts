// The files of a Hydra run as the pipeline reads them (collect/): its primary config composed with its group options
// and the launch line's overrides (analyzers/hydra), each file with the facts whose values it writes, and the facts a
// launch line's overrides have where the line writes them. Pure: files come through the pipeline's FileReader.
import type { ConfigFacts, LaunchArgument } from './facts';
import type { FileReader } from './pipeline';
import type { AnalyzedFile, FileRole } from './resolve';
import { hydraRun, isHydraPrimary } from './hydra';
import { shippedHydraOptions, shippedHydraOrigin } from './hydra/rl2-shipped';

/**
 * The files of a Hydra run opened at `opened` that are not read yet (`seen`, which takes them): its primary config (the
 * file, or `../config.yaml` of a group option) with the options its defaults list or the launch line choose, read
 * beside it; the file opened keeps its role, the others are referenced.
 */
export function hydraFiles(
  reader: FileReader,
  opened: { readonly file: string; readonly text: string },
  how: {
    readonly role: FileRole;
    readonly overrides?: readonly LaunchArgument[];
    /** The file is its application's primary config (the one @hydra.main or a launch line names). */
    readonly hydraPrimary?: true;
    /** The launcher whose line writes the overrides, where their facts are said. */
    readonly hydraLauncher?: string;
  },
  seen: Set<string>,
  toLauncher: (path: string, facts: ConfigFacts) => void,
): AnalyzedFile[] {
  const { file, text } = opened;
  const launcher = how.hydraLauncher;
  const overrides = how.overrides ?? [];
  const primary = how.hydraPrimary === true || isHydraPrimary(text);
  const anchor = primary ? file : reader.join(file, '../config.yaml');
  const readAt = (path: string): { path: string; text: string } | undefined => {
    const t = path === file ? text : reader.read(path);
    return t === undefined ? undefined : { path, text: t };
  };
  // A config as its application ships it (read for a launch line whose checkout has none) has its options beside it.
  const run = hydraRun(
    { path: file, text },
    {
      overrides,
      read: shippedHydraOptions(file) ?? ((rel) => readAt(reader.join(anchor, rel))),
      readPrimary: () => readAt(anchor),
      primary,
      ...(launcher !== undefined ? { launcher } : {}),
    },
  );
  const out: AnalyzedFile[] = [];
  for (const f of run) {
    if (f.path === launcher) {
      toLauncher(f.path, f.facts);
      continue;
    }
    if (f.path !== file && seen.has(f.path)) continue;
    seen.add(f.path);
    const origin = shippedHydraOrigin(f.path);
    out.push({
      file: f.path,
      text: f.text,
      role: f.path === file ? how.role : 'referenced',
      facts: f.facts,
      ...(origin ? { origin } : {}),
    });
  }
  return out;
}

/** The facts a Hydra run says at its launcher's overrides, added to the launcher's own. */
export function mergeFacts(files: AnalyzedFile[], path: string, extra: ConfigFacts): void {
  const i = files.findIndex((f) => f.file === path);
  if (i < 0) return;
  const facts = files[i].facts;
  files[i] = {
    ...files[i],
    facts: {
      ...facts,
      facts: [...facts.facts, ...extra.facts],
      problems: [...facts.problems, ...extra.problems],
      tools: [...new Set([...facts.tools, ...extra.tools])],
    },
  };
}

// Chooses the analyzer for a file by its name and content (not by extension alone), and runs it, over the rows of
// FORMATS (formats.ts). Pure: no I/O; never throws on user text.
import type { ModuleRead } from './hf-python/imported-constants';
import {
  emptyFacts,
  type ConfigFacts,
  type Format,
  type LaunchArgument,
  type ModuleContext,
  type Reference,
} from './facts';
import { analyzeShell, calledWith } from './shell';
import type { SourcedVariables } from './shell/sourced';
import { keptPythonReading } from './kept-python';
import { analyzeVerlYaml } from './verl/yaml';
import { analyzeAlignAnythingYaml } from './yaml/align-anything';
import { DetectionInput, FORMATS, SYNTAX_CLAIMS } from './formats';
import { capProblems, MAX_PROBLEMS, notAnalyzed } from './guards';

const ALL_FORMATS = Object.keys(FORMATS) as Format[];

/**
 * The format of a file, or undefined when it is not a training config VRAM Lens reads. `byName` false leaves out a
 * project's config read by the names of its keys (a file another file of the run reads: its reading is that file's).
 */
export function detectFormat(fileName: string, text: string, languageId?: string, byName = true): Format | undefined {
  const file = new DetectionInput(fileName, text, languageId, byName);
  if (FORMATS.scenario.detect(file)) return 'scenario';
  const claim = SYNTAX_CLAIMS.find(([, claims]) => claims(file));
  if (!claim) return undefined;
  const writtenIn = (format: Format): boolean =>
    FORMATS[format].syntax === claim[0] || (FORMATS[format].alsoIn ?? []).includes(claim[0]);
  return ALL_FORMATS.find((format) => writtenIn(format) && FORMATS[format].detect(file));
}

/** What the file that leads to a file passes on to its reading (collect/reading.ts). */
export interface ReadingContext {
  /** For a helper module of a Python script: the script's options and the names it calls. */
  readonly module?: ModuleContext;
  /** For a verl config: the launch line's overrides of it. */
  readonly overrides?: readonly LaunchArgument[];
  /** For a Python script: the modules of its project, for the constants it imports from them. */
  readonly readModule?: ModuleRead;
  /** For a shell script another runs: its words and the variables the caller exports (Reference.shell). */
  readonly shell?: NonNullable<Reference['shell']> & { readonly caller: string };
  /** For a shell script: the variables of the files it sources, as read (shell/sourced.ts). */
  readonly sourced?: SourcedVariables;
  /** For a Python script a launch line runs, and its modules: the environment variables the line gives it. */
  readonly environment?: ReadonlyMap<string, string>;
  /**
   * For a shell script of several training launches: whether a path a launch writes names a file the user gave. The
   * last launch that names one is the run, where otherwise the last launch is.
   */
  readonly launchNaming?: (written: string) => boolean;
}

/**
 * Runs the analyzer of a format (the scenario format has its own reader: analyzeScenario). A text over the size or
 * nesting limits (guards.ts) is not parsed: its facts are empty, with a problem that says why.
 */
export function analyzeAs(format: Format, text: string, how: ReadingContext = {}): ConfigFacts {
  const refused = notAnalyzed(text, FORMATS[format].syntax);
  if (refused) return { ...emptyFacts(format), problems: [refused] };
  // A helper module of a Python script is read with the script's options (hf-python/helper-modules.ts), a script with
  // the constants it imports from its project (hf-python/imported-constants.ts); a verl config with the launch line's
  // overrides of it; a shell script with the words its caller runs it with.
  const facts =
    (how.module || how.readModule || how.environment) && format === 'hf-python'
      ? keptPythonReading(text, how.module, how.readModule, how.environment)
      : how.overrides && format === 'verl-yaml'
        ? analyzeVerlYaml(text, how.overrides)
        : how.overrides && format === 'align-anything-yaml'
          ? analyzeAlignAnythingYaml(text, how.overrides)
          : (how.shell || how.sourced || how.launchNaming) && format === 'shell'
            ? analyzeShell(text, how.shell && calledWith(how.shell), how.sourced, { launchNaming: how.launchNaming })
            : FORMATS[format].analyze(text);
  return facts.problems.length > MAX_PROBLEMS ? { ...facts, problems: capProblems(facts.problems) } : facts;
}

// transformers installed from its repository at a commit or branch (`transformers @ git+https://github.com/
// huggingface/transformers.git@43d17c1...`, Axolotl's requirements.txt of 2024): no release is named, and its
// behaviour changed at 5.0 (dtype="auto", fused MoE experts, the 4-bit load under FSDP). The same file's other pins
// date it where one of them predates transformers 5 by far; otherwise the release stays open. Pure: no I/O.
import { olderThan, type ProvenanceMap, type TrainingSetup } from '../core';
import type { Location, Problem } from './scenario';
import type { PackageName, Pins } from './pins';
import { LAST_TRANSFORMERS_4 } from './facts';

/** Where the git requirement is, its ref, and the other pins of its file. */
export interface TransformersFromGit {
  readonly at: Location;
  readonly ref: string;
  readonly pins: Pins;
}

/**
 * Releases that came out more than a year before transformers 5.0 (January 2026): a file that pins one of them dates
 * from transformers 4 (Accelerate 1.0 came in October 2024, PyTorch 2.5 in October 2024, DeepSpeed 0.16 in November
 * 2024, PEFT 0.14 and bitsandbytes 0.45 in December 2024; TRL before 0.27 predates transformers 5's fixes).
 */
const BEFORE_TRANSFORMERS_5: readonly [PackageName, number, number][] = [
  ['accelerate', 1, 0],
  ['torch', 2, 5],
  ['deepspeed', 0, 16],
  ['peft', 0, 14],
  ['bitsandbytes', 0, 45],
  ['trl', 0, 27],
];

/**
 * The transformers release of a git install: the last 4.x where a pin of its file predates transformers 5 (said with
 * that pin), else left to VRAM Lens's default with an info note at the line, as the commit names no release.
 */
export function transformersOfGitCommit(
  setup: TrainingSetup,
  provenance: Record<string, ProvenanceMap[keyof ProvenanceMap]>,
  problems: Problem[],
  git: TransformersFromGit,
): TrainingSetup {
  const what = `transformers installed from a git ${git.ref ? `commit (${git.ref.slice(0, 12)})` : 'branch'}`;
  const old = BEFORE_TRANSFORMERS_5.find(([name, major, minor]) => {
    const v = git.pins[name]?.version;
    return v !== undefined && olderThan(v, major, minor);
  });
  if (!old) {
    problems.push({
      ...git.at,
      severity: 'info',
      code: 'not-static',
      message:
        `${what} names no release: a current one is assumed (transformers 5 loads the checkpoint's dtype, fuses ` +
        'MoE experts and loads 4-bit models whole under FSDP); set transformers_version',
      key: 'transformers',
    });
    return setup;
  }
  const [name] = old;
  provenance.transformers_version = {
    kind: 'default',
    owner: 'VRAM Lens',
    note:
      `${what} (${git.at.file}:${git.at.line}) names no release; the same file pins ${name} ${git.pins[name]!.version}, ` +
      `a release of transformers 4's time: ${LAST_TRANSFORMERS_4}, the last 4.x release, is assumed (an older one may ` +
      'hold more): set transformers_version',
  };
  return { ...setup, transformers_version: LAST_TRANSFORMERS_4 };
}

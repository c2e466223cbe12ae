// Shared test helpers: build setups from catalog models, run the estimator, find components.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { estimate, type EstimateOptions } from '../../src/core/estimate';
import { findModel } from '../../src/core/lookup';
import type { Component, Estimate, PhaseEstimate } from '../../src/core/model';
import { TrainingSetupSchema, type TrainingSetup, type TrainingSetupInput } from '../../src/core/setup';
import { runPipeline, type FileReader, type PipelineResult } from '../../src/analyzers/pipeline';
import type { Overrides } from '../../src/analyzers/resolve';
import { isUnknown, type Fact } from '../../src/analyzers/facts';
import { nodeFileReader } from '../../src/node/files';

export const GB = 1e9;

/**
 * A training script with an `if __name__ == "__main__":` block of its own and a helper, `build()`, that another script
 * may import (the run tests of cli.test.ts and helper-modules.test.ts): Qwen2.5-0.5B at per_device_train_batch_size 2.
 */
export const SCRIPT_WITH_MAIN =
  'from transformers import AutoModelForCausalLM, TrainingArguments, Trainer\n' +
  'def build(): return AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B")\n' +
  'def main():\n' +
  '    Trainer(model=build(), args=TrainingArguments(output_dir="o", per_device_train_batch_size=2)).train()\n' +
  'if __name__ == "__main__":\n    main()\n';

/** Folders the tests made under the system's temporary folder, removed when the run ends. */
const madeFolders: string[] = [];

/**
 * The run of `entry` with `files` written under a new project folder and read from disk, as the CLI reads them (a
 * script under scripts/ finds its modules and data from the folders above it, the repository root it runs from).
 */
export function runProject(
  files: Readonly<Record<string, string>>,
  entry: string,
  prefix = 'vram-lens-project-',
): PipelineResult & { root: string } {
  const root = tempDir(prefix);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const file = path.join(root, entry);
  return { ...runPipeline([{ file, text: files[entry] }], nodeFileReader(root), {}), root };
}

/** A new empty folder under the system's temporary folder (its real path), removed after the test run. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  madeFolders.push(dir);
  return dir;
}

// A root hook (this module is loaded by the test files): the folders go once every suite has run.
if (typeof after === 'function')
  after(() => {
    for (const dir of madeFolders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

export function setupFor(model: string, extra: Partial<TrainingSetupInput> = {}): TrainingSetup {
  const m = findModel(model);
  assert.ok(m.ok, `catalog has ${model}`);
  return TrainingSetupSchema.parse({
    model: m.model.id,
    architecture: m.model.config,
    parameters: m.model.publishedParams,
    ...extra,
  });
}

export function run(setup: TrainingSetup, opts?: EstimateOptions): Estimate {
  const r = estimate(setup, opts);
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.errors));
  return r.estimate;
}

export function phase(e: Estimate, name: PhaseEstimate['phase']): PhaseEstimate {
  const p = e.perGpu.phases.find((x) => x.phase === name);
  assert.ok(p, `phase ${name} present`);
  return p;
}

export function component(p: PhaseEstimate, id: Component['id']): number {
  return p.components.filter((c) => c.id === id).reduce((s, c) => s + c.bytes, 0);
}

/** ../shared (the reference material beside the checkout), or undefined on a fresh clone. */
export function sharedDir(): string | undefined {
  const d = path.resolve(__dirname, '..', '..', '..', '..', 'shared');
  return fs.existsSync(d) ? d : undefined;
}

export const near = (actual: number, expected: number, relTol: number, what: string): void => {
  const err = Math.abs(actual - expected) / Math.abs(expected);
  assert.ok(
    err <= relTol,
    `${what}: ${actual} vs ${expected} (${(err * 100).toFixed(2)}% > ${(relTol * 100).toFixed(1)}%)`,
  );
};

/** One file through the analysis pipeline with the built-in catalog and no other files (references unread). */
export function resolveText(file: string, text: string, overrides: Overrides = {}): PipelineResult {
  return runPipeline([{ file, text }], { read: () => undefined, join: (_f: string, r: string) => r }, overrides);
}

/** A reader of the given files (POSIX paths), a relative path joined to its referrer's folder. */
export const inMemory = (files: Readonly<Record<string, string>>): FileReader => ({
  read: (f: string) => files[f],
  join: (f: string, r: string) => path.posix.join(path.posix.dirname(f), r),
});

/** A run opened at `entries` (POSIX paths) with `files` readable by the pipeline, as an editor's workspace is. */
export function runFiles(files: Readonly<Record<string, string>>, ...entries: string[]): PipelineResult {
  return runPipeline(
    entries.map((file) => ({ file, text: files[file] })),
    inMemory(files),
    {},
  );
}

/** The fact of `key` a file of a run gives (a known value before an unknown one), its file and the text at it. */
export function runFact(r: PipelineResult, key: string): { file: string; fact: Fact; at: string } | undefined {
  const all = r.files.flatMap((f) =>
    f.facts.facts
      .filter((fact) => fact.key === key)
      .map((fact) => ({ file: f.file, fact, at: f.text.slice(fact.valueSpan.start, fact.valueSpan.end) })),
  );
  return all.find((x) => !isUnknown(x.fact.value)) ?? all[0];
}

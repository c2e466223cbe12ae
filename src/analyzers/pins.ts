// The transformers, PyTorch, torchao, TRL, PEFT, bitsandbytes, DeepSpeed, Accelerate and Axolotl versions a project
// pins in its dependency files (requirements.txt, pyproject.toml, environment.yml, a Dockerfile's pip install lines),
// found beside the config or in the folders above it. A pin decides behaviour that changed between releases (how
// transformers stores MoE experts, what softmax keeps for backward, how torchao quantizes NF4, TRL's trainers' passes
// and SFT's default loss, the dtype PEFT gives LoRA weights, what bitsandbytes' 4-bit matmul keeps, when DeepSpeed
// makes its gradient buckets, what Axolotl loads for load_in_4bit). Only pins that name the version pip installs
// count: `==` / `===`, `~=` (its own release line), an inclusive upper bound `<=` (pip installs the newest release it
// allows) and an exclusive one `<` (the release line just below it: `<4.54.0` installs a 4.53 release, `<5`
// transformers' last 4.x line, 4.57); a lower bound alone leaves the version open.

import { TRL_COMMIT_PREFIX, TRL_COMMITS } from './trl-commits';

export interface Pin {
  readonly version: string;
  /** The commit a git requirement names, where its release line was read from it (trl-commits.ts). */
  readonly commit?: string;
  /** Offsets of the requirement in the file's text. */
  readonly start: number;
  readonly end: number;
}

export interface Pins {
  readonly transformers?: Pin;
  readonly torch?: Pin;
  readonly torchao?: Pin;
  readonly trl?: Pin;
  readonly peft?: Pin;
  readonly bitsandbytes?: Pin;
  readonly deepspeed?: Pin;
  readonly accelerate?: Pin;
  /** Axolotl's own release: what its loader does with load_in_4bit beside adapter: lora (axolotl-release.ts). */
  readonly axolotl?: Pin;
  /** OpenRLHF's release: how its SFT trainer takes the loss (setup.openrlhf_version). */
  readonly openrlhf?: Pin;
  /** transformers installed from a git commit or branch (`transformers @ git+https://...@43d17c1`): no release read. */
  readonly transformersGit?: GitPin;
  /** TRL installed from a branch, or a commit not of its main history: no release read. */
  readonly trlGit?: GitPin;
}

/** The packages whose release a pin names. */
export type PackageName = Exclude<keyof Pins, 'transformersGit' | 'trlGit'>;

/** A requirement that installs a package from its repository at a commit or branch, not a release. */
export interface GitPin {
  /** The commit, branch or tag after `@` (empty for the default branch). */
  readonly ref: string;
  readonly start: number;
  readonly end: number;
}

/**
 * Dependency files looked for, in this order, in the config's folder and then in the folders above it. A setup.py's or
 * setup.cfg's requirement strings are read as requirements.txt's lines (`_deps = ["trl==0.15.0", ...]`); PEP 508 lets a
 * requirement put its specifiers in parentheses (`trl (==0.15.0)`).
 */
export const DEPENDENCY_FILES: readonly string[] = [
  'requirements.txt',
  'pyproject.toml',
  'setup.py',
  'setup.cfg',
  'environment.yml',
  'environment.yaml',
  'Dockerfile',
  'README.md',
];

/**
 * A Dockerfile's pins are those of its `pip install` lines (a base image's tag is not one), and so are a README's (its
 * setup section's `pip install transformers==4.31.0 peft==0.4.0`; a version named in its prose is not a pin).
 */
export function dependencyPins(name: string, text: string): Pins {
  if (name === 'Dockerfile' || name === 'README.md') return installPins(text);
  const read = name === 'setup.py' || name === 'pyproject.toml' ? withoutDeviceExtras(text) : text;
  const pins = findPins(read);
  return name === 'pyproject.toml' ? { ...poetryPins(read), ...pins } : pins;
}

/**
 * Extras for another accelerator are not the run's: LLaMA-Factory's setup.py `"torch-npu": ["torch==2.1.0",
 * "torch-npu==2.1.0.post3", ...]` pins the PyTorch of Ascend NPUs (Wyyyb/leakage_influence read it as the run's torch
 * 2.1, eager attention). Their lists are blanked, offsets kept: a setup.py's `"<name>": [...]` and a pyproject.toml's
 * `<name> = [...]` whose name is an NPU, XPU, HPU, MLU, ROCm or MUSA device's.
 */
function withoutDeviceExtras(text: string): string {
  const device = String.raw`[\w-]*(?:npu|xpu|hpu|mlu|rocm|musa|ascend|gaudi)[\w-]*`;
  const re = new RegExp(String.raw`(?:["']${device}["']\s*:|^[ \t]*${device}[ \t]*=)\s*\[[^\]]*\]`, 'gim');
  return text.replace(re, (m) => m.replace(/[^\n]/g, ' '));
}

/**
 * Poetry's dependency lines in pyproject.toml (`trl = "0.16.1"`, `torch = "^2.1"`, `transformers = { version =
 * "~4.46.0", extras = [...] }`): a bare version is that release; `^` and `~` install the newest release of the line
 * they name (sotopia-lab/sotopia-rl's `trl = "0.16.1"`).
 */
function poetryPins(text: string): Pins {
  const out: { -readonly [K in keyof Pins]: Pins[K] } = {};
  const re = new RegExp(
    String.raw`^[ \t]*(transformers|torch(?:ao)?|trl|peft|bitsandbytes|deepspeed|accelerate|axolotl|openrlhf)[ \t]*=[ \t]*` +
      String.raw`(?:\{[^}\n]*?version[ \t]*=[ \t]*)?["'](?:==)?([\^~]?)(\d+\.\d+(?:\.\d+)?)["']`,
    'gm',
  );
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const name = m[1] as PackageName;
    if (out[name]) continue;
    const version = m[2] ? m[3].split('.').slice(0, 2).join('.') : m[3];
    out[name] = { version, start: m.index, end: m.index + m[0].length };
  }
  return out;
}
/** How many folders above the config's are searched. */
export const PARENT_LEVELS = 2;

const VERSION = /^\d+\.\d+(\.\d+)?/;

/** The pinned versions of transformers, torch, torchao, trl, peft, bitsandbytes, deepspeed, accelerate, axolotl and openrlhf in a dependency file's text. */
export function findPins(text: string): Pins {
  const out: { -readonly [K in keyof Pins]: Pins[K] } = {};
  // A requirement: the name, optional extras, then comma-separated specifiers up to the end of the requirement. The
  // space after the last specifier is left to the next requirement of the line (`peft==0.4.0 transformers==4.31.0`).
  const re = new RegExp(
    String.raw`(^|[\s"'[,])(transformers|torch(?:ao)?|trl|peft|bitsandbytes|deepspeed|accelerate|axolotl|openrlhf)(\[[^\]]*\])?\s*` +
      String.raw`\(?\s*((?:(?:==|===|~=|<=|>=|<|>|!=)\s*[\w.*+-]+(?:\s*,\s*(?=[=~<>!]))?)+)`,
    'gm',
  );
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const name = m[2] as PackageName;
    if (out[name]) continue;
    // A line commented out (`# transformers==4.46`) is not a requirement.
    if (commentedOut(text, m.index + m[1].length)) continue;
    const version = pinnedVersion(m[4], name);
    if (!version) continue;
    const start = m.index + m[1].length;
    out[name] = { version, start, end: start + m[0].length - m[1].length };
  }
  const transformers = gitRequirement(text, 'transformers');
  if (transformers && !out.transformers) {
    // A release tag (`@v4.40.0`) is that release; a commit or a branch names none.
    const version = tagVersion(transformers.ref);
    if (version) out.transformers = { version, start: transformers.start, end: transformers.end };
    else out.transformersGit = transformers;
  }
  const trl = gitRequirement(text, 'trl');
  if (trl && !out.trl) {
    // A tag is its release; a commit of TRL's main history, the release line its tree declares.
    const tag = tagVersion(trl.ref);
    const line = tag ?? trlOfCommit(trl.ref);
    if (line) out.trl = { version: line, start: trl.start, end: trl.end, ...(tag ? {} : { commit: trl.ref }) };
    else out.trlGit = trl;
  }
  return out;
}

/** The release a git ref names where it is a tag (`v4.40.0`, `0.14.0`). */
const tagVersion = (ref: string): string | undefined => /^v?(\d+\.\d+(?:\.\d+)?)$/.exec(ref)?.[1];

/**
 * TRL's release line of a commit of its main history (trl-commits.ts), from its hash or a prefix of at least 7 hex
 * digits; undefined for a branch or a commit not there (a fork's, or one newer than the table).
 */
export function trlOfCommit(ref: string): string | undefined {
  if (!/^[0-9a-f]{7,40}$/i.test(ref)) return undefined;
  const prefix = ref.toLowerCase().slice(0, TRL_COMMIT_PREFIX);
  const width = TRL_COMMIT_PREFIX + 1;
  for (const [line, commits] of Object.entries(TRL_COMMITS)) {
    for (let at = commits.indexOf(prefix); at !== -1; at = commits.indexOf(prefix, at + 1))
      if (at % width === 0) return line;
  }
  return undefined;
}

/** Whether the text before `at` on its line has a `#` (a comment). */
function commentedOut(text: string, at: number): boolean {
  return /#/.test(text.slice(text.lastIndexOf('\n', at) + 1, at));
}

/**
 * A package installed from its repository on GitHub (huggingface/<name>): `trl[vllm] @ git+https://github.com/
 * huggingface/trl.git@<ref>` or `git+https://github.com/huggingface/transformers[.git][@<ref>]` (a pip line, or
 * `#egg=transformers` after it).
 */
function gitRequirement(text: string, name: 'transformers' | 'trl'): GitPin | undefined {
  const re = new RegExp(
    String.raw`(?:\b${name}(?:\[[^\]]*\])?\s*@\s*)?git\+https?:\/\/github\.com\/huggingface\/${name}(?:\.git)?(?![\w-])(?:@([\w.\-/]+))?`,
    'g',
  );
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (commentedOut(text, m.index)) continue;
    return { ref: m[1] ?? '', start: m.index, end: m.index + m[0].length };
  }
  return undefined;
}

/** The last release line of a major version, for `<N` and `<N.0` (transformers 4.57.6 was the last 4.x release). */
const LAST_LINE: Partial<Record<keyof Pins, Record<string, string>>> = {
  transformers: { '4': '4.57' },
  torch: { '1': '1.13' },
};

/** The release line just below an exclusive bound: `<4.54.0` is 4.53, `<2.1.3` is 2.1.2, `<5` the last 4.x line. */
function lineBelow(bound: string, name: keyof Pins): string | undefined {
  const [major, minor = 0, patch = 0] = bound.split('.').map(Number);
  if (patch > 0) return `${major}.${minor}.${patch - 1}`;
  if (minor > 0) return `${major}.${minor - 1}`;
  return major > 0 ? LAST_LINE[name]?.[String(major - 1)] : undefined;
}

/** The version a set of specifiers makes pip install, when it names one. */
function pinnedVersion(specs: string, name: keyof Pins): string | undefined {
  let upper: string | undefined;
  for (const raw of specs.split(',')) {
    const s = raw.trim();
    const m = /^(==|===|~=|<=|<)\s*([\w.*+-]+)$/.exec(s);
    if (!m) continue;
    if (m[1] === '<') {
      const below = /^\d+(\.\d+){0,2}$/.test(m[2]) ? lineBelow(m[2], name) : undefined;
      if (below) upper = below;
      continue;
    }
    const v = VERSION.exec(m[2])?.[0];
    if (!v) continue;
    if (m[1] === '==' || m[1] === '===' || m[1] === '~=') return v;
    upper = v;
  }
  return upper;
}

/**
 * The pins of the `pip install` lines of a notebook or a launch script (`%pip install "transformers==4.40.0" ...`,
 * `!pip install -q trl==0.8.6`, `uv pip install ...`): what the run installs before it trains. Offsets are in the whole
 * text; the first pin of each package wins.
 */
export function installPins(text: string): Pins {
  if (!/\bpip3?\s+install\b/.test(text)) return {};
  const out: { -readonly [K in keyof Pins]: Pins[K] } = {};
  // Each install command, found first (a pattern that scans lines from their start is quadratic in a notebook's long
  // output lines), read to the end of its line.
  const re = /\bpip3?\s+install\b/g;
  let lineEnd = -1;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index < lineEnd) continue;
    // The command runs to the end of its line, or of its notebook source line (a JSON string's `\n` escape).
    const start = m.index;
    const ends = [text.indexOf('\n', start), text.indexOf('\\n', start)].filter((i) => i !== -1);
    lineEnd = ends.length > 0 ? Math.min(...ends) : text.length;
    const { transformersGit, trlGit, ...found } = findPins(text.slice(start, lineEnd));
    for (const [name, pin] of Object.entries(found) as [PackageName, Pin][]) {
      if (!out[name]) out[name] = { ...pin, start: start + pin.start, end: start + pin.end };
    }
    if (transformersGit && !out.transformersGit)
      out.transformersGit = {
        ...transformersGit,
        start: start + transformersGit.start,
        end: start + transformersGit.end,
      };
    if (trlGit && !out.trlGit) out.trlGit = { ...trlGit, start: start + trlGit.start, end: start + trlGit.end };
  }
  return out;
}

#!/usr/bin/env node
// Puts the real files of SOURCES.tsv under test/real-files/files/ and each repository's license under
// test/real-files/LICENSES/, read from local git copies of the repositories at the recorded commits: it refreshes
// the committed copies, or (--check) says which differ from the recorded commits.
//
//   node test/real-files/collect.mjs [--mirror DIR] [--check]
//
// DIR holds one git directory per repository, as <owner>+<name>/repo (bare) or <owner>+<name> (a clone);
// default $REAL_FILES_MIRROR or /work/.mirror. --check only reports which files are missing or differ.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const mirror = args.includes('--mirror') ? args[args.indexOf('--mirror') + 1] : process.env.REAL_FILES_MIRROR ?? '/work/.mirror';
const check = args.includes('--check');

function gitDir(repo) {
  const base = path.join(mirror, repo.replace('/', '+'));
  for (const d of [path.join(base, 'repo'), path.join(base, '.git'), base]) {
    if (fs.existsSync(path.join(d, 'HEAD'))) return d;
  }
  return undefined;
}

function show(dir, commit, file) {
  return execFileSync('git', ['--git-dir', dir, 'show', `${commit}:${file}`], { maxBuffer: 64 << 20 });
}

const rows = fs.readFileSync(path.join(here, 'SOURCES.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => {
  const [file, repository, p, commit, license] = l.split('\t');
  return { file, repository, path: p, commit, license };
});

let written = 0;
let same = 0;
const problems = [];
const licensesDone = new Set();
for (const r of rows) {
  const dir = gitDir(r.repository);
  if (!dir) {
    problems.push(`${r.file}: no git copy of ${r.repository} under ${mirror}`);
    continue;
  }
  let body;
  try {
    body = show(dir, r.commit, r.path);
  } catch {
    problems.push(`${r.file}: ${r.path} not found at ${r.commit} in ${dir}`);
    continue;
  }
  const dest = path.join(here, 'files', r.file);
  if (fs.existsSync(dest) && fs.readFileSync(dest).equals(body)) same++;
  else if (check) problems.push(`${r.file}: ${fs.existsSync(dest) ? 'differs from' : 'missing, in'} ${r.repository}@${r.commit.slice(0, 12)}`);
  else {
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.writeFileSync(dest, body);
    written++;
  }
  const lic = `${r.repository.replace('/', '__')}.txt`;
  if (licensesDone.has(lic) || check) continue;
  licensesDone.add(lic);
  const names = execFileSync('git', ['--git-dir', dir, 'ls-tree', '--name-only', r.commit], { encoding: 'utf8' }).split('\n');
  const licenseFile = names.find((n) => /^licen[cs]e(\.md|\.txt)?$/i.test(n));
  if (!licenseFile) {
    problems.push(`${r.repository}: no LICENSE file at ${r.commit}`);
    continue;
  }
  fs.mkdirSync(path.join(here, 'LICENSES'), { recursive: true });
  fs.writeFileSync(path.join(here, 'LICENSES', lic), show(dir, r.commit, licenseFile));
}
process.stdout.write(`${rows.length} files in SOURCES.tsv: ${same} already in place, ${written} written, ${problems.length} problems\n`);
for (const p of problems) process.stdout.write(`  ${p}\n`);
process.exitCode = problems.length > 0 ? 1 : 0;

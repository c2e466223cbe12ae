// The documents VRAM Lens looks at; features check the content (detectFormat) before doing any work.
import * as vscode from 'vscode';
import { detectFormat } from '../analyzers/detect';

export const CONFIG_FILTERS: ReadonlyArray<{ readonly language?: string; readonly pattern?: string }> = [
  { language: 'json' },
  { language: 'jsonc' },
  { language: 'python' },
  { language: 'yaml' },
  { language: 'shellscript' },
  { language: 'toml' },
  { pattern: '**/*.toml' },
  { pattern: '**/*.vram.{yaml,yml,json}' },
  { pattern: '**/*.conf' },
  // Batch jobs that launch a run (`sbatch train.slurm`, `qsub sft.pbs`), whatever language VS Code gives them.
  { pattern: '**/*.{slurm,sbatch,pbs,job,lsf,qsub}' },
];

/** Whether a document is a training config VRAM Lens reads (its name and, for ambiguous names, its first 64 KB). */
export function isConfigDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file' && doc.uri.scheme !== 'untitled') return false;
  const head = doc.getText(new vscode.Range(0, 0, Math.min(doc.lineCount, 2000), 0));
  return detectFormat(doc.fileName, head.slice(0, 65_536), doc.languageId) !== undefined;
}

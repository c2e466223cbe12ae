// The documents VRAM Lens looks at; features check the content (detectFormat) before doing any work.
import type * as vscode from 'vscode';

export const CONFIG_SELECTOR: vscode.DocumentSelector = [
  { language: 'json' }, { language: 'jsonc' }, { language: 'python' }, { language: 'yaml' }, { language: 'shellscript' },
  { pattern: '**/*.vram.{yaml,yml,json}' }, { pattern: '**/*.conf' },
];

// A call that names one keyword argument twice (`TrainingArguments(..., lr_scheduler_type="cosine", ...,
// lr_scheduler_type="linear")`, tapir-mirror/model_finetune's main.py): Python refuses to compile the file
// ("SyntaxError: keyword argument repeated"), so the run never starts. Said at the second keyword; the estimate reads
// the call as written (its last value). Pure.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { span } from './syntax';

/** A warning at each keyword a call names again. */
export function repeatedKeywords(file: PythonFile, calls: readonly SyntaxNode[]): void {
  for (const c of calls) {
    const list = c.getChild('ArgList');
    const seen = new Set<string>();
    for (let n = list?.firstChild; n; n = n.nextSibling) {
      if (n.name !== 'VariableName' || n.nextSibling?.name !== 'AssignOp') continue;
      const name = file.text.slice(n.from, n.to);
      if (seen.has(name))
        file.problem(
          'duplicate-key',
          'warning',
          msg('keyword argument {0} repeated: Python refuses to compile the file (SyntaxError)', name),
          span(n),
          name,
        );
      seen.add(name);
    }
  }
}

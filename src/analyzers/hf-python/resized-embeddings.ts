// `model.resize_token_embeddings(len(tokenizer))` where the tokenizer is loaded from another place than the model
// (ymcui/Chinese-LLaMA-Alpaca-2's run_clm_sft_with_peft.py: `--tokenizer_name_or_path` of its 55,296-token Chinese
// tokenizer over Llama-2's 32,000): the embeddings and the head take that tokenizer's vocabulary, which no file of the
// run gives, so the estimate keeps the checkpoint's. A warning at the call; a tokenizer of the model's own checkpoint (a
// pad token added) changes it by a few rows and is not said. Pure: reads the script's syntax tree.
import type { SyntaxNode } from '@lezer/common';
import { msg } from '../facts';
import type { PythonFile } from './file';
import { assignedName, span } from './syntax';

export function resizedEmbeddings(file: PythonFile, calls: readonly SyntaxNode[]): void {
  const firstArg = (c: SyntaxNode): string | undefined => {
    const a = file.args(c).positional[0];
    return a ? file.text.slice(a.from, a.to) : undefined;
  };
  const loads = (pattern: RegExp): SyntaxNode[] =>
    calls.filter((c) => pattern.test(file.calleeName(c) ?? '') && firstArg(c) !== undefined);
  const models = loads(/ForCausalLM\.from_pretrained$/).map(firstArg);
  const tokenizers = loads(/Tokenizer(Fast)?\.from_pretrained$/);
  if (models.length === 0 || tokenizers.length === 0) return;
  for (const c of calls) {
    if (!/\.resize_token_embeddings$/.test(file.calleeName(c) ?? '')) continue;
    const arg = file.args(c).positional[0];
    const size = arg ? /^len\((\w+)\)$/.exec(file.text.slice(arg.from, arg.to).replace(/\s+/g, '')) : null;
    if (!arg || !size) continue;
    const own = tokenizers.filter((t) => assignedName(t, file.text) === size[1]);
    const elsewhere = own.find((t) => !models.includes(firstArg(t)));
    if (!elsewhere || own.some((t) => models.includes(firstArg(t)))) continue;
    file.problem(
      'not-modeled',
      'warning',
      msg(
        'resize_token_embeddings: the embeddings and the output head take the vocabulary of the tokenizer loaded ' +
          "from {0}, not the model's checkpoint; no file of the run gives its size, so the estimate keeps the checkpoint's",
        firstArg(elsewhere)!,
      ),
      span(arg),
      'resize_token_embeddings',
    );
    return;
  }
}

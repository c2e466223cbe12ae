// The names a script imports transformers' and TRL's classes under (`from transformers import Seq2SeqTrainer as
// _Seq2SeqTrainer`, THUDM/GLM-4's finetune_demo/finetune.py, which then defines a Seq2SeqTrainer of its own on it), so
// that a class extending the alias, or a call of it, is read as the library's class. Pure.

/** `from transformers… import …` / `from trl… import …`, the names in one line or in parentheses. */
const LIBRARY_IMPORT = /^[ \t]*from[ \t]+(?:transformers|trl)(?:\.[\w.]+)?[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)/gm;
const AS = /^(\w+)\s+as\s+(\w+)$/;

/** Each alias of an imported library name, to that name (an empty map when the file imports none under another name). */
export function libraryAliases(text: string): ReadonlyMap<string, string> {
  const aliases = new Map<string, string>();
  if (!/\bimport\b[^\n]*\bas\b|\bimport\s*\(/.test(text)) return aliases;
  for (const m of text.matchAll(LIBRARY_IMPORT)) {
    const names = m[1].replace(/^\(|\)$/g, '').replace(/#[^\n]*/g, '');
    for (const part of names.split(',')) {
      const a = AS.exec(part.trim());
      if (a && a[1] !== a[2]) aliases.set(a[2], a[1]);
    }
  }
  return aliases;
}

// Whether the branches around a call run it: the `if` statements and conditional expressions that hold it, with their
// tests evaluated statically where they can be (script defaults such as `if args.use_lora:`). Pure: it never runs code.
import type { SyntaxNode } from '@lezer/common';
import { msg, type Span } from '../facts';
import type { Binding, PythonFile, Scope, Val } from './file';
import { children, clip, pyTruthy, readingNoneDefaults, span } from './syntax';

/**
 * A call on a branch, as the branch runs: skipped where its `if` is known not to run it, else its callee's span and
 * text, with the condition it runs under where that is not known statically (said as an info at the callee when
 * `infoAtCall`: what the call turns on may not run).
 */
export function callOnBranch(
  file: PythonFile,
  call: SyntaxNode,
  infoAtCall = false,
): { readonly at: Span; readonly name: string; readonly cond: string | undefined } | undefined {
  const taken = branchTaken(file, call);
  if (taken === false) return undefined;
  const cond = taken === undefined ? conditionOf(file, call) : undefined;
  const at = span(call.firstChild!);
  const name = file.text.slice(at.start, at.end);
  if (cond && infoAtCall)
    file.problem(
      'not-static',
      'info',
      msg('{0} is not known statically: {1}', name, `it runs only when ${cond}`),
      at,
      name,
    );
  return { at, name, cond };
}

/** The condition under which a call's value is used: a conditional expression or an `if` around it (not the main guard). */
export function conditionOf(file: PythonFile, call: SyntaxNode): string | undefined {
  // In a settled helper module the `if` statements around a call are known to run it (the others are not read).
  const ifsRun = file.settled && branchTaken(file, call) === true;
  let child: SyntaxNode = call;
  for (let p = call.parent; p; child = p, p = p.parent) {
    const c = p.name === 'ConditionalExpression' ? conditionalSide(p, child) : undefined;
    if (c) {
      // Settled, a test known to take the call's side (`bnb_config if args.qlora else None`) holds no condition.
      if (file.settled && testValue(file, c.test) === c.side) continue;
      return `${clip(file.text.slice(c.kw.to, c.els.from).trim(), 60)} is ${c.side} (line ${file.line(c.kw.from)})`;
    }
    if (p.name === 'IfStatement' && !ifsRun) {
      const cond = file.text.slice(p.firstChild?.to ?? p.from, p.getChild('Body')?.from ?? p.from).trim();
      if (!/__name__\s*==\s*['"]__main__['"]/.test(cond)) return `the if at line ${file.line(p.from)} runs this branch`;
    }
    if (p.name === 'FunctionDefinition' || p.name === 'Script') return undefined;
  }
  return undefined;
}

/**
 * The side of `x if test else y` that `child` is (true: x, false: y), with the expression's `if`, `else` and test;
 * undefined for the test itself or a malformed expression.
 */
function conditionalSide(
  expr: SyntaxNode,
  child: SyntaxNode,
): { side: boolean; kw: SyntaxNode; els: SyntaxNode; test: SyntaxNode } | undefined {
  const kw = expr.getChild('if');
  const els = expr.getChild('else');
  const test = kw?.nextSibling;
  if (!kw || !els || !test) return undefined;
  const side = child.from < kw.from ? true : child.from > els.from ? false : undefined;
  return side === undefined ? undefined : { side, kw, els, test };
}

/**
 * Whether the conditional expression a call sits in takes its side (`GPTQConfig(...) if lora_args.q_lora else None`,
 * QwenLM/Qwen's finetune.py with q_lora False): true outside one, undefined where its test is not known statically.
 */
export function sideTaken(file: PythonFile, call: SyntaxNode): boolean | undefined {
  for (let child: SyntaxNode = call, p = call.parent; p; child = p, p = p.parent) {
    if (p.name === 'ConditionalExpression') {
      const c = conditionalSide(p, child);
      const v = c ? testValue(file, c.test) : undefined;
      return c === undefined || v === undefined ? undefined : v === c.side;
    }
    if (/Statement$|^Body$|^Script$/.test(p.name)) return true;
  }
  return true;
}

/**
 * Whether the `if` statements around a call run it, as far as their tests are known statically (script defaults
 * such as `if args.use_lora:` with use_lora False): false when one of them is known to take another branch, true
 * when every one is known to take the call's, undefined otherwise. The main guard counts as taken, but in a
 * module the script imports.
 */
export function branchTaken(file: PythonFile, call: SyntaxNode): boolean | undefined {
  let all = true;
  for (let child: SyntaxNode = call, p = call.parent; p; child = p, p = p.parent) {
    if (p.name === 'Body' && exitedBefore(file, p, child)) return false;
    if (p.name === 'FunctionDefinition' && neverCalled(file, p)) return false;
    if (p.name !== 'IfStatement') continue;
    const taken = clauseTaken(file, p, call);
    if (taken === false) return false;
    if (taken === undefined) all = false;
  }
  return all ? true : undefined;
}

/**
 * Whether a function's block has returned (or raised) before the statement that holds a call: an `if` of one clause
 * whose body ends in `return` or `raise` and whose test is known true (taishan1994/DPO-Finetuning utils.py:
 * `if model_args.use_peft is False: return None` before its LoraConfig, with use_peft False by default).
 */
function exitedBefore(file: PythonFile, body: SyntaxNode, stmt: SyntaxNode): boolean {
  let guards = file.exitGuards.get(body.from);
  if (!guards) {
    guards = inFunction(body) ? exitGuards(body) : [];
    file.exitGuards.set(body.from, guards);
  }
  for (const g of guards) {
    if (g.from >= stmt.from) break;
    if (testValue(file, g.firstChild!.nextSibling!) === true) return true;
  }
  return false;
}

/** A block's `if` statements of one clause whose body ends in `return` or `raise`, in order. */
function exitGuards(body: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let st = body.firstChild; st; st = st.nextSibling) {
    if (st.name !== 'IfStatement' || st.getChild('elif') || st.getChild('else') || !st.firstChild?.nextSibling)
      continue;
    const last = st.getChild('Body')?.lastChild;
    if (last?.name === 'ReturnStatement' || last?.name === 'RaiseStatement') out.push(st);
  }
  return out;
}

/** Whether a block is a function's (its own body, or one nested in it). */
function inFunction(node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p.name === 'FunctionDefinition') return true;
  return false;
}

/**
 * Whether a function or method of the file is known not to run: every place the file names it is a call on a branch
 * known not to run (tdolega/rag-tge: `if self.args.use_unsloth: self.init_model_unsloth()` with use_unsloth False, so
 * the Unsloth loader in that method is not the run's). A function named nowhere else (called by another file, by a
 * decorator's framework) or named otherwise than in a call (a callback) runs. Asked once the file's tests are settled
 * (PythonFile.testValues, which keeps the answer under the def's span); a def met again inside its own working out runs.
 */
function neverCalled(file: PythonFile, def: SyntaxNode): boolean {
  const known = file.testValues;
  const nameNode = def.getChild('VariableName');
  if (!known || !nameNode) return false;
  const key = `def ${def.from}`;
  if (known.has(key)) return known.get(key) === true;
  known.set(key, false);
  const name = file.text.slice(nameNode.from, nameNode.to);
  const method = def.parent?.name === 'Body' && def.parent.parent?.name === 'ClassDefinition';
  let calls = 0;
  let skipped = true;
  for (const m of file.text.matchAll(new RegExp(`(?<![\\w])${name}(?![\\w])`, 'g'))) {
    if (m.index === nameNode.from) continue;
    const call = calledAt(file, m.index);
    // Another object's method of the name (`trainer.train()` beside a function `train`) is not a call of this def.
    if (call && !callsDef(file, call, method)) continue;
    if (!call || branchTaken(file, call) !== false) {
      skipped = false;
      break;
    }
    calls++;
  }
  const never = skipped && calls > 0;
  known.set(key, never);
  return never;
}

/** Whether a call calls the def: a function by its bare name, a method through `self` or `cls`. */
function callsDef(file: PythonFile, call: SyntaxNode, method: boolean): boolean {
  const callee = call.firstChild;
  if (!method) return callee?.name === 'VariableName';
  const object = callee?.name === 'MemberExpression' ? callee.firstChild : null;
  return object?.name === 'VariableName' && /^(self|cls)$/.test(file.text.slice(object.from, object.to));
}

/** Whether a node is inside a function or method of the file that never runs (neverCalled). */
export function inUncalledFunction(file: PythonFile, node: SyntaxNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (p.name === 'FunctionDefinition' && neverCalled(file, p)) return true;
  return false;
}

/** The call whose callee ends in the name at `pos` (`f(...)`, `self.f(...)`), if the name is one. */
function calledAt(file: PythonFile, pos: number): SyntaxNode | undefined {
  const n = file.root.resolveInner(pos, 1);
  if (n.name !== 'VariableName' && n.name !== 'PropertyName') return undefined;
  const callee = n.name === 'PropertyName' ? n.parent : n;
  const call = callee?.parent;
  return call?.name === 'CallExpression' && call.firstChild?.from === callee!.from && call.firstChild.to === callee!.to
    ? call
    : undefined;
}

/** Whether an if statement runs the clause that holds `call`: its test true (or, for else, every test false). */
function clauseTaken(file: PythonFile, stmt: SyntaxNode, call: SyntaxNode): boolean | undefined {
  const tests: boolean[] = [];
  let test: SyntaxNode | null = null;
  for (let c = stmt.firstChild; c; c = c.nextSibling) {
    if (c.name === 'Body') {
      const inside = call.from >= c.from && call.to <= c.to;
      const value = test ? testValue(file, test) : undefined;
      if (inside) {
        // `else`: taken when every test before it is false, not when one of them is true.
        if (test === null) return tests.every((t) => t === false) ? true : tests.some((t) => t) ? false : undefined;
        // The main guard runs the script's block, not that of a module the script imports.
        if (/__name__\s*==\s*['"]__main__['"]/.test(file.text.slice(test.from, test.to))) return !file.imported;
        if (tests.some((t) => t === true)) return false;
        return value;
      }
      if (value === undefined) return undefined;
      tests.push(value);
      test = null;
    } else if (c.name !== 'if' && c.name !== 'elif' && c.name !== 'else' && c.name !== ':') {
      test = c;
    }
  }
  return undefined;
}

/**
 * The clause an `if` statement runs, its tests evaluated statically: the Body of the first clause whose test is true
 * (the `else` where every test is false), null where none runs, undefined where a test before the one taken is not
 * known.
 */
export function takenBody(file: PythonFile, stmt: SyntaxNode): SyntaxNode | null | undefined {
  let test: SyntaxNode | null = null;
  for (let c = stmt.firstChild; c; c = c.nextSibling) {
    if (c.name === 'Body') {
      if (test === null) return c;
      const value = testValue(file, test);
      if (value !== false) return value === true ? c : undefined;
      test = null;
    } else if (c.name !== 'if' && c.name !== 'elif' && c.name !== 'else' && c.name !== ':') {
      test = c;
    }
  }
  return null;
}

/**
 * The test of an `if` around a call that is known to be false, with its value as evaluated (which carries the script
 * default it was read from, `use_lora: bool = False`): what keeps the call from running. Only the first clause of an
 * `if` is looked at; undefined when no such test is known false.
 */
export function falseTest(file: PythonFile, call: SyntaxNode): { test: SyntaxNode; value: Val } | undefined {
  for (let p = call.parent; p; p = p.parent) {
    if (p.name !== 'IfStatement') continue;
    const test = p.firstChild?.nextSibling;
    const body = p.getChild('Body');
    if (!test || !body || call.from < body.from || call.to > body.to) continue;
    const value = evalTest(file, test);
    if (truth(value) === false) return { test, value };
  }
  return undefined;
}

function evalTest(file: PythonFile, test: SyntaxNode): Val {
  return readingNoneDefaults(file, () => file.evalNode(test, 0));
}

function truth(v: Val): boolean | undefined {
  return v.k === 'lit' ? pyTruthy(v.v) : undefined;
}

/**
 * The truth of an `if` test, worked out once per reading once the file's calls, options and modules are known
 * (PythonFile.testValues, from the reading of its calls on): a statement is asked whether its branches run for every
 * call and binding inside them (LLaVA's train.py decides `if "llava" in model_args.model_name_or_path.lower():`
 * hundreds of times). Undefined while it is being worked out, so a test that leads back to itself is not known.
 */
function testValue(file: PythonFile, test: SyntaxNode): boolean | undefined {
  const known = file.testValues;
  const key = `${test.from}:${test.to}`;
  if (!known) {
    // Before the options are settled nothing is kept, but a test met again inside its own working out is not known
    // (tdolega/rag-tge: `if not notified:` around `notified = True`, the name read through its settled binding).
    if (file.testsPending.has(key)) return undefined;
    file.testsPending.add(key);
    try {
      return truth(evalTest(file, test));
    } finally {
      file.testsPending.delete(key);
    }
  }
  if (known.has(key)) return known.get(key);
  known.set(key, undefined);
  const value = truth(evalTest(file, test));
  known.set(key, value);
  return value;
}

/**
 * The binding of a name that runs, in a settled helper module (PythonFile.settled): the latest before the use whose
 * `if` branches are not known to be skipped (one on a branch not known either way is returned, and reads as set
 * conditionally).
 */
export function settledBinding(
  file: PythonFile,
  name: string,
  latest: Binding,
  scope: Scope,
  use: SyntaxNode,
): Binding {
  const all = scope.bindings.get(name) ?? [];
  const seen = all.filter((x) => x.end <= use.from);
  const before = seen.length > 0 ? seen : all;
  for (let i = before.length - 1; i >= 0; i--) {
    const x = before[i];
    if (x.condLine === undefined || !x.valueNode) return x;
    if (branchTaken(file, x.valueNode) !== false) return x;
  }
  return latest;
}

/**
 * Whether a use comes after an assignment in the block that holds the assignment (or in one nested in it): set on a
 * branch, the name is set wherever that branch reaches the use (qlora.py: `modules = find_all_linear_names(args,
 * model)` and `LoraConfig(target_modules=modules)` in one `else:` block).
 */
function sameBlock(value: SyntaxNode, use: SyntaxNode): boolean {
  let block = value.parent;
  while (block && block.name !== 'Body') block = block.parent;
  if (!block || use.from < value.to) return false;
  return use.from >= block.from && use.to <= block.to;
}

/**
 * Whether a name's binding holds wherever the use runs: not set on a branch, set earlier in the block that holds the
 * use, or (in a settled helper module) on a branch the run is known to take.
 */
export function setWhereUsed(file: PythonFile, b: Binding, value: SyntaxNode, use: SyntaxNode): boolean {
  return b.condLine === undefined || sameBlock(value, use) || (file.settled && branchTaken(file, value) === true);
}

/** A test of whether a path exists: `os.path.exists(p)`, `os.path.isdir(p)`, `path.exists()`, joined by `and`. */
const EXISTS = /^(?:os\.path\.(?:exists|isdir|isfile)\(.+\)|[\w.()[\]"'/ ]+\.(?:exists|is_dir|is_file)\(\))$/;

/**
 * A name an `if` sets on both of its two branches, where its test is whether a path exists (`if
 * os.path.exists(BASE_MODEL_PATH): model_path = BASE_MODEL_PATH` / `else: model_path = ORIGINAL_MODEL_PATH`, a local
 * copy or a trained checkpoint, else what to load without it): the value the branch taken where the path does not
 * exist gives, which a machine without it loads, with the test and its line to say so. Undefined for any other `if`.
 */
export function existenceFallback(
  file: PythonFile,
  name: string,
  b: Binding,
): { readonly value: SyntaxNode; readonly test: string; readonly line: number } | undefined {
  const ifStmt = b.valueNode?.parent?.parent?.parent;
  if (ifStmt?.name !== 'IfStatement') return undefined;
  const parts = children(ifStmt).filter((c) => c.name !== ':');
  if (parts.length !== 5 || parts[0].name !== 'if' || parts[3].name !== 'else') return undefined;
  const raw = file.text.slice(parts[1].from, parts[1].to).trim();
  const negated = /^not\s+/.test(raw);
  const test = raw.replace(/^not\s+/, '').replace(/^\((.*)\)$/, '$1');
  if (!test.split(/\s+and\s+/).every((t) => EXISTS.test(t.trim()))) return undefined;
  const fallback = assignedIn(file, negated ? parts[2] : parts[4], name);
  const other = assignedIn(file, negated ? parts[4] : parts[2], name);
  return fallback && other ? { value: fallback, test: clip(raw, 60), line: file.line(ifStmt.from) } : undefined;
}

/** The value of the last `name = value` statement of a branch's body (at its top level). */
function assignedIn(file: PythonFile, body: SyntaxNode, name: string): SyntaxNode | undefined {
  let value: SyntaxNode | undefined;
  for (const st of children(body)) {
    const target = st.name === 'AssignStatement' ? st.firstChild : null;
    if (target?.name !== 'VariableName' || file.text.slice(target.from, target.to) !== name) continue;
    if (st.getChildren('AssignOp').length === 1 && st.lastChild) value = st.lastChild;
  }
  return value;
}

/**
 * In a settled module, a number set outside any branch and set again on branches its options do not decide
 * (LS-LLaMA's `max_length = 64`, then `elif dataset in [...]: max_length = 200`, the dataset from sys.argv): the
 * largest of the values, as the peak is that of the most demanding branch, with each value and its line to say so.
 * Undefined where any of the values is not a number or none is set outside a branch.
 */
export function largestOverBranches(
  file: PythonFile,
  name: string,
  scope: Scope,
  use: SyntaxNode,
  depth: number,
): { readonly value: number; readonly node: SyntaxNode; readonly text: string } | undefined {
  if (!file.settled) return undefined;
  const candidates: Binding[] = [];
  const seen = (scope.bindings.get(name) ?? []).filter((x) => x.end <= use.from);
  for (let i = seen.length - 1; i >= 0; i--) {
    const x = seen[i];
    if (x.kind !== 'assign' || !x.valueNode) return undefined;
    const taken = x.condLine === undefined || branchTaken(file, x.valueNode);
    if (taken === false) continue;
    candidates.push(x);
    if (taken === true) break;
  }
  const base = candidates.at(-1);
  if (!base || base.condLine !== undefined || candidates.length < 2) return undefined;
  const values: { readonly value: number; readonly node: SyntaxNode }[] = [];
  for (const c of candidates.reverse()) {
    const v = file.evalNode(c.valueNode!, depth + 1);
    if (v.k !== 'lit' || typeof v.v !== 'number') return undefined;
    values.push({ value: v.v, node: c.valueNode! });
  }
  const largest = values.reduce((a, b) => (b.value > a.value ? b : a));
  const each = values.map((v, i) => `${v.value} at line ${file.line(v.node.from)}${i > 0 ? ' on a branch' : ''}`);
  return {
    ...largest,
    text: `${name} = ${each.join(', ')}: the largest over the branches the options do not decide is estimated`,
  };
}

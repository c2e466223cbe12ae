// Functions of the script that read an environment variable with a default (hwang2006/finetuning-gpt-oss-on-hpc's
// `env_str`, `env_int`, `env_float`, `env_bool01`): a call with a literal name and default is the launch line's value
// of the variable, else the default, converted as the function converts it. Pure; it never runs code.
import type { SyntaxNode } from '@lezer/common';
import type { PythonFile, Val } from './file';
import type { FactValue } from '../facts';
import { parameters } from './syntax';
import { calledFunctionBody, launchEnvironment, returnStatements, soleReturn } from './expressions';

/**
 * A call of a function of the file that reads an environment variable with a default (`def env_int(name, default):
 * return int(os.getenv(name, str(default)))`: hwang2006/finetuning-gpt-oss-on-hpc's env_str / env_int / env_float,
 * `MODEL_ID = env_str("MODEL_ID", "Qwen/Qwen2.5-7B-Instruct")`) with a literal name and default: the default,
 * converted as the return converts it, as os.getenv's own default is read.
 */
export function environmentHelper(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const body = calledFunctionBody(file, node);
  const ret = body ? soleReturn(body) : undefined;
  const fn = body?.parent;
  if (!ret || fn?.name !== 'FunctionDefinition') return undefined;
  const params = parameters(file.text, fn.getChild('ParamList')).map((p) => p.name);
  const expr = file.text
    .slice(ret.from, ret.to)
    .replace(/^return\s+/, '')
    .trim();
  const converted = /^(int|float|str)\((.*)\)$/s.exec(expr);
  const read = /^os\.(?:getenv|environ\.get)\(\s*(\w+)\s*,\s*(?:str\(\s*(\w+)\s*\)|(\w+))\s*\)$/s.exec(
    (converted ? converted[2] : expr).trim(),
  );
  if (!read || read[1] !== params[0] || (read[2] ?? read[3]) !== params[1]) return undefined;
  const a = file.args(node);
  if (a.positional.length !== 2 || a.entries.length > 0 || a.opaque.length > 0) return undefined;
  const [name, dflt] = a.positional.map((p) => file.evalNode(p, depth + 1));
  if (name.k !== 'lit' || typeof name.v !== 'string' || dflt.k !== 'lit') return undefined;
  // The launch line's environment, where it gives the variable, else the call's default.
  const given = launchEnvironment(file, name.v, node);
  const raw = given?.v ?? dflt.v;
  const v = converted ? envConverted(converted[1], raw) : raw;
  if (v === undefined) return undefined;
  return given ? { ...given, v } : { k: 'lit', v };
}

/**
 * A function of the file that reads an environment variable with a default and returns a switch (`def env_bool01(name,
 * default): val = os.getenv(name, str(default)).strip().lower(); if val in ("1", "true", ...): return True; ...`):
 * every return gives True, False or a test, and the body reads `os.getenv(name, default)` of its two parameters. The
 * call's value is the launch line's value of the variable, else the default, read as such helpers read it: "1",
 * "true", "yes", "on" true, "0", "false", "no", "off" and "" false, a number true unless 0.
 */
export function switchEnvironmentHelper(file: PythonFile, node: SyntaxNode, depth: number): Val | undefined {
  const body = calledFunctionBody(file, node);
  const fn = body?.parent;
  if (!body || fn?.name !== 'FunctionDefinition') return undefined;
  const params = parameters(file.text, fn.getChild('ParamList')).map((p) => p.name);
  if (params.length < 2) return undefined;
  const [nameParam, defaultParam] = params;
  const reads = new RegExp(
    String.raw`os\.(?:getenv|environ\.get)\(\s*${nameParam}\s*,\s*(?:str\(\s*${defaultParam}\s*\)|${defaultParam})\s*\)`,
  );
  const returns = returnStatements(body).map((r) => returnedExpression(file, r));
  if (!reads.test(file.text.slice(body.from, body.to)) || returns.length < 2 || !returns.every(isSwitch))
    return undefined;
  const a = file.args(node);
  if (a.positional.length !== 2 || a.entries.length > 0 || a.opaque.length > 0) return undefined;
  const [name, dflt] = a.positional.map((p) => file.evalNode(p, depth + 1));
  if (name.k !== 'lit' || typeof name.v !== 'string' || dflt.k !== 'lit') return undefined;
  const given = launchEnvironment(file, name.v, node);
  const v = switchOf(given?.v ?? dflt.v);
  if (v === undefined) return undefined;
  return given ? { ...given, v } : { k: 'lit', v };
}

/** A return statement's expression, as written. */
const returnedExpression = (file: PythonFile, ret: SyntaxNode): string =>
  file.text
    .slice(ret.from, ret.to)
    .replace(/^return\s+/, '')
    .trim();

/** An expression that gives a switch: True, False, bool(...), a membership test or a comparison. */
const isSwitch = (expr: string): boolean =>
  /^(?:True|False|bool\(.*\)|[\w.()]+\s+(?:not\s+)?in\s+[([{].*|[\w.()]+\s*[!=]=\s*.+)$/s.test(expr);

const SWITCH_ON = new Set(['1', 'true', 'yes', 'on', 'y', 't']);
const SWITCH_OFF = new Set(['0', 'false', 'no', 'off', 'n', 'f', '']);

/** A variable's text (or a default's value) as a switch helper reads it; undefined for text it does not name. */
function switchOf(v: FactValue): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v !== 'string') return undefined;
  const t = v.trim().toLowerCase();
  return SWITCH_ON.has(t) ? true : SWITCH_OFF.has(t) ? false : undefined;
}

/** A default as int(), float() or str() of its text gives it (what the helper returns without the variable set). */
function envConverted(conversion: string, v: FactValue): FactValue | undefined {
  const text = typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  if (text === undefined) return undefined;
  if (conversion === 'str') return text;
  if (conversion === 'int') return /^\s*[-+]?\d+\s*$/.test(text) ? Number(text) : undefined;
  return /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/.test(text) ? Number(text) : undefined;
}

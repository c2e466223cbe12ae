// Every formula that reads as a product of printed numbers ("20.91B trainable x 2 B / 8") must multiply to its
// component's bytes, within the rounding of the printed figures (issue #26 item 10). Checked over the published
// measurements (bench/measured-cases.ts, needs ../shared/reference) and every catalog model under a few variants.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { caseGpu, caseToSetup, type MeasuredCase } from '../../bench/measured-cases';
import { MODEL_CATALOG } from '../../src/core/catalog/models';
import {
  estimate,
  type Estimate,
  TrainingSetupSchema,
  type TrainingSetup,
  type TrainingSetupInput,
} from '../../src/core';
import { sharedDir } from './helpers';

const SCALE: Readonly<Record<string, number>> = {
  K: 1e3,
  M: 1e6,
  B: 1e9,
  T: 1e12,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
};

/** One printed factor: its value and the relative error its rounding allows. */
interface Factor {
  value: number;
  relErr: number;
}

/**
 * A factor: a number with an attached K/M/B/T scale ("20.91B") or a spaced binary unit ("3.2 GiB"), then words
 * ("trainable", "params", "B" for bytes). Undefined when the text does not start with a number.
 */
export function parseFactor(text: string): Factor | undefined {
  const m = /^(\d[\d,]*(?:\.\d+)?)([KMBT])?(?:\s+(KiB|MiB|GiB|TiB)\b)?(?:\s+[A-Za-z][A-Za-z0-9_\-'. ]*)?$/.exec(
    text.trim(),
  );
  if (!m) return undefined;
  const digits = m[1].replace(/,/g, '');
  const decimals = digits.includes('.') ? digits.split('.')[1].length : 0;
  const n = Number(digits);
  const scale = (m[2] ? SCALE[m[2]] : 1) * (m[3] ? SCALE[m[3]] : 1);
  // Half a unit of the last printed digit, relative (an exact integer without scale prints exactly).
  const half = m[2] || m[3] || decimals > 0 ? 0.5 * 10 ** -decimals : 0;
  return { value: n * scale, relErr: n > 0 ? half / n : 0 };
}

/** The product a formula states, when its leading expression is a product/quotient of printed numbers only. */
export function statedProduct(formula: string): Factor | undefined {
  let f = formula;
  for (let prev = ''; prev !== f;) {
    prev = f;
    f = f.replace(/\([^()]*\)/g, '');
  }
  // The expression before any explanation; of "A x B = C x D" the last side.
  const head = f.split(/[;:,]| - | for | on | per | beside | until | kept | allocated /)[0];
  const sides = head
    .split(' = ')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  for (const side of sides.reverse()) {
    if (side.includes('+') || !/ x | \/ /.test(side)) continue;
    const parts = side.split(/ (x|\/) /);
    let value = 1;
    let relErr = 0;
    let ok = true;
    for (let i = 0; i < parts.length; i += 2) {
      const fac = parseFactor(parts[i]);
      if (!fac) {
        ok = false;
        break;
      }
      value = i > 0 && parts[i - 1] === '/' ? value / fac.value : value * fac.value;
      relErr += fac.relErr;
    }
    if (ok) return { value, relErr };
  }
  return undefined;
}

describe('formulas: a product of printed numbers equals its component (issue #26 item 10)', () => {
  it('parses the printed factors and their rounding', () => {
    assert.deepEqual(parseFactor('20.91B trainable'), { value: 20.91e9, relErr: 0.005 / 20.91 });
    assert.deepEqual(parseFactor('2 B'), { value: 2, relErr: 0 });
    assert.equal(parseFactor('3.2 GiB of layer units')!.value, 3.2 * 2 ** 30);
    assert.equal(parseFactor('saved per layer'), undefined);
    assert.equal(statedProduct('2 layers x saved per layer'), undefined);
    assert.equal(Math.round(statedProduct('70.55B trainable x 2 B / 8 (sharded)')!.value), (70.55e9 * 2) / 8);
    assert.equal(Math.round(statedProduct('V x h / TP = 525.3M params x 2 B')!.value), 525.3e6 * 2);
  });

  it('holds over the published cases and the catalog variants', function () {
    this.timeout(120_000);
    const setups: Array<{ id: string; setup: TrainingSetup; gpu?: ReturnType<typeof caseGpu> }> = [];
    const shared = sharedDir();
    if (shared) {
      const cases = JSON.parse(
        fs.readFileSync(path.join(shared, 'reference', 'measured.json'), 'utf8'),
      ) as MeasuredCase[];
      for (const c of cases) {
        const conv = caseToSetup(c);
        if (conv.ok) setups.push({ id: c.id, setup: conv.setup, gpu: caseGpu(c) });
      }
    }
    const variants: Readonly<Record<string, Partial<TrainingSetupInput>>> = {
      defaults: {},
      'full amp fp32 weights': { weights_dtype: 'fp32', mixed_precision: 'bf16', micro_batch_size: 2, seq_len: 2048 },
      'lora all-linear': {
        method: 'lora',
        lora: { r: 16, target_modules: 'all-linear' },
        weights_dtype: 'bf16',
        seq_len: 1024,
      },
      'qlora nf4': {
        method: 'qlora',
        lora: { r: 64, target_modules: 'all-linear' },
        quantization: { bits: 4, type: 'nf4', double_quant: true },
        weights_dtype: 'bf16',
        gradient_checkpointing: 'full',
      },
      'zero3 x8': {
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        master_weights: true,
        gpus_per_node: 8,
        zero_stage: 3,
        gradient_checkpointing: 'full',
      },
      'fsdp x8 offload': {
        weights_dtype: 'fp32',
        mixed_precision: 'bf16',
        gpus_per_node: 8,
        fsdp: 'full_shard',
        offload_params: 'cpu',
        gradient_checkpointing: 'full',
      },
      'fsdp x8': {
        weights_dtype: 'bf16',
        mixed_precision: 'bf16',
        gpus_per_node: 8,
        fsdp: 'full_shard',
        gradient_checkpointing: 'selective',
        seq_len: 4096,
      },
      'tp2 pp2 x8': {
        weights_dtype: 'bf16',
        gpus_per_node: 8,
        tensor_parallel: 2,
        pipeline_parallel: 2,
        sequence_parallel: true,
        gradient_checkpointing: 'full',
      },
    };
    for (const m of MODEL_CATALOG) {
      for (const [name, patch] of Object.entries(variants)) {
        const parsed = TrainingSetupSchema.safeParse({
          model: m.id,
          architecture: m.config,
          parameters: m.publishedParams,
          ...patch,
        });
        if (parsed.success) setups.push({ id: `${m.id} / ${name}`, setup: parsed.data });
      }
    }
    const lies: string[] = [];
    let checked = 0;
    for (const s of setups) {
      const r = estimate(s.setup, s.gpu ? { gpu: s.gpu } : {});
      if (!r.ok) continue;
      for (const [where, c] of formulaRows(r.estimate)) {
        const p = statedProduct(c.formula);
        if (!p) continue;
        checked++;
        // The printed figures' rounding, and a byte for a product that rounds to whole bytes.
        if (Math.abs(p.value - c.bytes) > p.relErr * 1.0001 * Math.max(p.value, c.bytes) + 1) {
          lies.push(`${s.id} ${where} ${c.label}: "${c.formula}" = ${Math.round(p.value)} vs ${Math.round(c.bytes)} B`);
        }
      }
    }
    assert.ok(checked > 1000, `checked ${checked} formulas`);
    const distinct = [
      ...new Set(
        lies.map((l) =>
          l
            .replace(/^.*? (forward|backward|optimizer|evaluation|generation|first-step|runtime) /, '$1 ')
            .replace(/[\d.,]+/g, '#'),
        ),
      ),
    ];
    assert.deepEqual(
      lies.slice(0, 20),
      [],
      `${lies.length} formulas that do not multiply to their bytes (${distinct.length} kinds):\n${distinct.slice(0, 30).join('\n')}`,
    );
  });
});

/** Each phase's components and the runtime terms, with where they appear. */
function formulaRows(e: Estimate): Array<[string, { label: string; formula: string; bytes: number }]> {
  const rows: Array<[string, { label: string; formula: string; bytes: number }]> = [];
  for (const ph of e.perGpu.phases)
    for (const c of ph.components) rows.push([ph.phase, { label: c.label, formula: c.formula, bytes: c.bytes }]);
  for (const t of e.perGpu.runtime) rows.push(['runtime', { label: t.label, formula: t.formula, bytes: t.bytes }]);
  return rows;
}

// A block's linear layers: the weight as the tape sees it (sharded by TP, its dtype and whether it trains), and the
// forward of a linear with its LoRA adapter (dropout, lora_A, lora_B, DoRA's magnitude) or (IA)^3 vector, and
// bitsandbytes' kept input. Sources: peft/tuners/lora/layer.py, peft/tuners/lora/bnb.py, peft/tuners/ia3/layer.py,
// bitsandbytes/autograd/_functions.py. Pure arithmetic; no I/O.
// Docs: docs/estimate/activations.md
import type { MatmulTemporary, Tensor, Weight } from '../saved-tensors';
import type { BlockContext } from './block';
import { loraEntryGradientBytes } from './recompute';
import { gptqCodeDtype } from './dequant';

/**
 * A module's weight on this TP rank (a hidden x hidden stand-in for a module the architecture does not list), or of
 * `fusedElems` elements where a model's code fuses several modules into one (LitGPT's qkv).
 */
export function weight(bc: BlockContext, name: string, fusedElems?: number): Weight {
  const { p, a, mods, tp } = bc;
  const m = mods.get(name);
  const elems = fusedElems ?? (m ? (m.inFeatures * m.outFeatures) / tp : a.hidden * a.hidden);
  // A 4/8-bit base weight is dequantized to the compute dtype inside bitsandbytes' matmul and never saved, so
  // autocast makes no 16-bit copy of it, whatever dtype the model's other parameters are stored in. A bare
  // parameter (transformers 5 fused experts and routers) is never quantized: it keeps the model dtype, or fp32 when
  // prepare_model_for_kbit_training upcast the unquantized parameters.
  if (m?.parameter && p.quantizedBase) {
    return {
      what: name,
      elems,
      trainable: p.baseTrainable,
      bytesPerElem: p.kbitUpcast !== undefined && p.kbitUpcast !== 'none' ? 4 : p.weightBytes,
    };
  }
  // transformers 5's grouped_mm over the fused 3-D experts is not autocast-enabled: it casts the input to the weight's
  // dtype (integrations/moe.py _grouped_mm), so fp32 experts compute in fp32 under autocast. Under FSDP mixed
  // precision the unsharded experts are 16-bit (p.unshardedParamBytes).
  if (
    m?.parameter &&
    m.group === 'expert' &&
    p.arch.fusedExperts === true &&
    p.expertsLooped !== true &&
    !p.quantizedBase
  ) {
    return {
      what: name,
      elems,
      trainable: p.baseTrainable,
      bytesPerElem: p.unshardedParamBytes ?? p.weightBytes,
      notAutocast: true,
    };
  }
  // transformers 4.x runs each expert's nn.Linear on its own tokens: under autocast every expert's fp32 weight gets its
  // own 16-bit copy (cached when it trains), which its matmul keeps for the input's gradient. CPU truth
  // tf4/mixtral-trainer-full-amp: -3.1 % with one expert's copies per projection, the other three experts' missing.
  const looped = m !== undefined && m.group === 'expert' && !m.parameter && p.arch.moe !== undefined;
  return {
    what: name,
    elems,
    trainable: p.baseTrainable,
    bytesPerElem: p.quantizedBase ? p.half : p.weightBytes,
    keepsInputDtype: p.quantizedBase,
    ...(p.quantizedBase && p.dequantBytes ? { dequant: dequantTemporaries(p, elems) } : {}),
    // bitsandbytes' layers call their own matmul, not torch.nn.functional.linear, which ZeRO-3 replaces.
    ...(p.zero3Linear && !p.quantizedBase ? { savesInput: true } : {}),
    ...(looped ? { copies: p.arch.moe!.experts } : {}),
  };
}

/**
 * What a quantized weight's matmul allocates before it runs and frees after (bitsandbytes MatMul4Bit through
 * backends/cuda/ops.py _dequant_linear_fallback, the path of training shapes: the nested absmax dequantized and offset,
 * then the weight dequantized whole in the compute dtype; torchao linear_nf4: weight.to(input.dtype)). A weight whose
 * QuantState dtype differs from the compute dtype is dequantized to that first and cast.
 */
function dequantTemporaries(p: BlockContext['p'], elems: number): MatmulTemporary[] {
  if (p.gptqCodeBytes) return gptqTemporaries(elems, p.gptqCodeBytes);
  const out: MatmulTemporary[] = [];
  if (p.nestedAbsmax) {
    const absmax = Math.ceil(elems / 64) * 4;
    out.push({ what: 'nested absmax, dequantized', bytes: absmax }, { what: 'absmax + offset', bytes: absmax });
  }
  if (p.dequantViaBytes)
    out.push({ what: 'dequantized weight (QuantState dtype)', bytes: elems * p.dequantViaBytes, untilNext: true });
  out.push({ what: 'dequantized weight', bytes: elems * p.dequantBytes! });
  return out;
}

/**
 * A GPTQ weight dequantized in torch (auto-gptq's nn_modules/qlinear/qlinear_cuda_old.py forward, the QuantLinear of a
 * checkpoint without act-order): the int32 codes shifted into one int32 per weight, `.to(torch.int8)` (int16 for 8-bit
 * codes), `weight - zeros` in that dtype, then `scales * (...)` in fp16, the operand of `torch.matmul(x.half(),
 * weight)`, which keeps it for the input's gradient. The zero points and scales expanded per group are 1/128 of these
 * and left out.
 */
function gptqTemporaries(elems: number, codeBytes: number): MatmulTemporary[] {
  const code = gptqCodeDtype(codeBytes);
  return [
    { what: 'GPTQ codes unpacked (int32)', bytes: elems * 4, untilNext: true },
    { what: `GPTQ codes (${code})`, bytes: elems * codeBytes, untilNext: true },
    { what: `GPTQ codes less zero points (${code})`, bytes: elems * codeBytes, untilNext: true },
    { what: 'GPTQ weight dequantized (fp16)', bytes: elems * 2, keptForInputGrad: true },
  ];
}

/**
 * A linear layer with its LoRA adapter or (IA)^3 vector when targeted (PEFT lora.Linear / ia3.Linear forward); records
 * what it saved and what an adapted one's backward holds before its first unpack (BlockState).
 */
export function linear(bc: BlockContext, x: Tensor, name: string, outFeatures: number, what: string): Tensor {
  const before = bc.tape.totalBytes();
  bc.state.lastLinearEntryGradBytes = 0;
  const y = adaptedLinear(bc, x, name, outFeatures, what);
  const adapted = bc.p.lora?.targets.has(name) === true || bc.p.ia3?.targets.has(name) === true;
  bc.state.lastLinearSaved = { bytes: bc.tape.totalBytes() - before, adapted };
  return y;
}

function adaptedLinear(bc: BlockContext, x: Tensor, name: string, outFeatures: number, what: string): Tensor {
  const { p, a, tape, mods, tp } = bc;
  const w = weight(bc, name);
  const ia3 = p.ia3;
  if (ia3 && ia3.targets.has(name)) {
    // A feed-forward target's input is cast to the vector's dtype and multiplied by it: the multiply keeps that cast
    // copy for the vector's gradient; the product goes back to the base dtype.
    if (ia3.feedforward.has(name)) {
      const xc = tape.to(x, ia3.dtypeBytes, `${name} IA3 input (adapter dtype)`);
      tape.save(xc);
      return tape.linear(
        tape.to(tape.free(xc, `${name} input x IA3 vector`), x.bytesPerElem, `${name} scaled input`),
        w,
        outFeatures,
        what,
      );
    }
    // Otherwise the output times the vector (peft/tuners/ia3/layer.py Linear.forward: (result * ia3_scaling)
    // .to(result_dtype)): the multiply keeps the output as it is for the vector's gradient; the product is promoted to
    // the vector's dtype and cast back.
    const y0 = tape.linear(x, w, outFeatures, what);
    tape.save(y0);
    tape.use(y0);
    const scaled = tape.tensor(`${what} x IA3 vector`, y0.elems, Math.max(y0.bytesPerElem, ia3.dtypeBytes), true);
    return tape.to(tape.free(scaled, `${what} x IA3 vector`), y0.bytesPerElem, `${what} (scaled)`);
  }
  const y = tape.linear(x, w, outFeatures, what);
  const m = mods.get(name);
  if (p.bnbKeepsInput && x.rg && !w.trainable && !m?.parameter) tape.holdInContext(x);
  const lora = p.lora;
  if (!lora || !lora.targets.has(name)) return y;
  // Input features on this TP rank (o_proj and down_proj are split along their input).
  const inLocal = (m?.inFeatures ?? a.hidden) / (name === 'o_proj' || name === 'down_proj' ? tp : 1);
  // PEFT casts x to the adapter dtype, applies dropout, then lora_A and lora_B (both trainable). Its 4/8-bit
  // layers skip the cast under autocast (peft/tuners/lora/bnb.py: requires_conversion = not is_autocast_enabled()).
  const xCast =
    p.quantizedBase && p.mode === 'amp' ? x : tape.to(x, lora.dtypeBytes, `${name} LoRA input (adapter dtype)`);
  const xa = tape.dropout(xCast, lora.dropout, `${name} LoRA dropout`);
  const norm = lora.dora
    ? doraWeightNorm(bc, {
        inFeatures: inLocal,
        outFeatures,
        r: lora.r,
        dtypeBytes: xa.bytesPerElem,
        w,
        name,
      })
    : undefined;
  const A: Weight = {
    what: `${name}.lora_A`,
    elems: (m?.inFeatures ?? a.hidden) * lora.r,
    trainable: true,
    bytesPerElem: lora.dtypeBytes,
  };
  const ya = tape.linear(xa, A, lora.r, `${name} lora_A output`);
  const B: Weight = {
    what: `${name}.lora_B`,
    elems: lora.r * outFeatures,
    trainable: true,
    bytesPerElem: lora.dtypeBytes,
  };
  const yb = tape.linear(ya, B, outFeatures, `${name} lora_B output`);
  tape.noteLoraInput(xa);
  // Module._call_impl holds the input in its args, and the forward its adapter-dtype cast in a local, until it returns.
  if (lora.dora) {
    const out = doraProducts(bc, { x: xa, y, yb, w, dtypeBytes: lora.dtypeBytes, dropout: lora.dropout, what }, norm);
    tape.keepThrough(x, xCast);
    return out;
  }
  // result + lora_B(...) * scaling (promoted to the wider dtype), cast back to the base output dtype: tensors that
  // nothing keeps, but that the allocator sees.
  const scaled = tape.free(yb, `${what} lora_B output x scaling`);
  tape.use(y);
  const sum = tape.free(scaled, `${what} + LoRA`, y.elems, Math.max(y.bytesPerElem, scaled.bytesPerElem));
  bc.state.lastLinearEntryGradBytes = loraEntryGradientBytes({
    elems: y.elems,
    outputBytes: y.bytesPerElem,
    sumBytes: sum.bytesPerElem,
  });
  const out = tape.to(sum, y.bytesPerElem, `${what} (+LoRA)`);
  tape.keepThrough(x, xCast);
  return out;
}

/** A DoRA target's tensors: the dropped adapter input, the base and LoRA outputs, the base weight and the adapters' dtype. */
interface DoraOperands {
  readonly x: Tensor;
  readonly y: Tensor;
  readonly yb: Tensor;
  readonly w: Weight;
  readonly dtypeBytes: number;
  readonly dropout: number;
  readonly what: string;
}

/** A DoRA target's shapes for its weight norm: features on this rank, the rank r, the input's dtype. */
interface DoraShape {
  readonly inFeatures: number;
  readonly outFeatures: number;
  readonly r: number;
  readonly dtypeBytes: number;
  readonly w: Weight;
  readonly name: string;
}

/**
 * DoRA's weight norm, made in every forward (peft/tuners/lora/dora.py DoraLinearLayer.forward, PEFT 0.21): the LoRA
 * product as lora_B(lora_A(identity)) over an in x in identity (get_lora_weight: its graph keeps the identity and
 * lora_A's output while the product lives), the base weight in the input's dtype (a copy where it differs), and the row
 * norms of weight + scaling x product (get_weight_norm: two out x in temporaries). The identity, lora_A's output, the
 * product and the cast weight are locals of the forward: they are returned to be held until it returns.
 */
function doraWeightNorm(bc: BlockContext, d: DoraShape): DoraNorm {
  const { tape } = bc;
  const b = d.dtypeBytes;
  const eye = tape.tensor(`${d.name} DoRA identity`, d.inFeatures * d.inFeatures, b, false);
  const eA = tape.free(eye, `${d.name} lora_A(identity)`, d.inFeatures * d.r, b);
  const product = tape.free(eA, `${d.name} DoRA LoRA product`, d.inFeatures * d.outFeatures, b);
  const weightCopy =
    d.w.bytesPerElem !== b ? tape.tensor(`${d.name} base weight in the input's dtype`, d.w.elems, b, false) : undefined;
  const scaled = tape.free(product, `${d.name} scaling x LoRA product`);
  const summed = tape.free(scaled, `${d.name} base weight + scaled product`);
  tape.free(summed, `${d.name} DoRA weight norm`, d.outFeatures, b);
  return { held: weightCopy ? [eye, eA, product, weightCopy] : [eye, eA, product], weightCopy };
}

/** The locals of DoRA's forward that outlive its weight norm, and the base weight cast to the input's dtype if made. */
interface DoraNorm {
  readonly held: readonly Tensor[];
  readonly weightCopy: Tensor | undefined;
}

/**
 * peft/tuners/lora/dora.py DoraLinearLayer.forward: (mag_norm_scale - 1) * base_result + mag_norm_scale * lora_result
 * * scaling, added to the base output by the variant; the magnitude is trained, so both products keep their tensor
 * operand for its gradient. With dropout (peft/tuners/lora/variants.py DoraLinearVariant.forward: base_result None)
 * the base output is computed again from the dropped input and the base weight in the input's dtype, F.linear keeps
 * that weight for the input's gradient (a copy where the dtypes differ; under autocast its 16-bit cast), and the product
 * keeps the new output. The weight norm's locals (doraWeightNorm) are held until the forward returns.
 */
function doraProducts(bc: BlockContext, d: DoraOperands, norm: DoraNorm | undefined): Tensor {
  const { p, tape } = bc;
  let base = d.y;
  if (d.dropout > 0) {
    // F.linear keeps the weight it multiplies: under autocast its 16-bit cast, else the cast the norm made (the same
    // local), if any.
    if (p.mode === 'amp') {
      tape.save(tape.tensor(`${d.w.what} 16-bit cast (autocast, DoRA)`, d.w.elems, tape.half, false));
    } else if (norm?.weightCopy) tape.save(norm.weightCopy);
    tape.use(d.x);
    base = tape.tensor(
      `${d.what} again from the dropped input (DoRA)`,
      d.y.elems,
      p.mode === 'amp' ? tape.computeBytes : d.dtypeBytes,
      true,
    );
  }
  // Each product packs its operands as it runs (the second's are the last a checkpoint's recompute waits for).
  tape.save(base);
  const baseTerm = tape.free(base, `(mag_norm_scale - 1) x ${d.what}`);
  tape.save(d.yb);
  const loraTerm = tape.free(
    tape.free(d.yb, `mag_norm_scale x ${d.what} lora_B output`),
    `${d.what} DoRA term x scaling`,
  );
  tape.use(baseTerm);
  const dora = tape.free(loraTerm, `${d.what} DoRA output`);
  if (norm) tape.keepThrough(...norm.held);
  tape.use(d.y);
  const sum = tape.free(dora, `${d.what} + DoRA`, d.y.elems, Math.max(d.y.bytesPerElem, dora.bytesPerElem));
  return tape.to(sum, d.y.bytesPerElem, `${d.what} (+DoRA)`);
}

"""Allocation trace of torchao 0.1's NF4 quantization and dequantization, from the PyTorch profiler on the CPU.

src/core/terms/nf4-load.ts replays torchtune 0.1's model build and load through the caching-allocator model. Its
per-weight steps (NF4Tensor.from_tensor and get_original_weight of torchao 0.1, torchao/dtypes/nf4tensor.py, before
pytorch/ao#196 quantized in chunks) are written op by op from the source. This script runs the same tensor ops on a
bf16 weight of n elements under torch.profiler(profile_memory=True) and prints, per step, the highest running sum of
the raw allocation records above what was allocated before the step and what the step leaves allocated, in bytes per
element; test/unit/allocator.test.ts holds the TypeScript trace to these numbers (tools/allocator/nf4_trace.json).

The ops follow torchao 0.1 (block 64, scaler block 256):
- from_tensor: the 16-entry NF4 table; double quantization of the per-block absmax (abs, max over blocks, mean,
  centring, absmax per 256 scalers, 256 / (2 x expanded absmax), multiply, round, clamp, int8); the blocks divided by
  their absmax; |x - nf4| for all 16 codes (numel x 16), its min over the codes (values and int64 indices); two codes
  packed per byte (int64 shift and or, then uint8).
- get_original_weight: both nibbles as int64, looked up in the table, the dequantized scalers repeated per element,
  the two halves scaled and stacked back into a bf16 weight.

Usage: /usr/bin/python3 tools/allocator/nf4_trace.py   (Debian's python3-torch, CPU only)
"""

import json
import sys

import torch
from torch.profiler import ProfilerActivity, profile

NF4 = [-1.0, -0.6962, -0.5251, -0.3949, -0.2844, -0.1848, -0.0911, 0.0,
       0.0796, 0.1609, 0.2461, 0.3379, 0.4407, 0.5626, 0.7230, 1.0]
BLOCK, SCALER_BLOCK = 64, 256


def block_absmax(x, block):
    return x.view(-1, block).abs().max(dim=1).values


def quantize(w):
    """torchao 0.1 NF4Tensor.from_tensor: returns the inner tensors the NF4 weight keeps."""
    table = torch.tensor(NF4, dtype=torch.bfloat16)
    flat = w.flatten()
    # double_quantize_scalers
    scalers = block_absmax(flat, BLOCK)
    mean = scalers.mean()
    scalers = scalers - mean
    n_scaler_blocks = scalers.numel() // SCALER_BLOCK
    scaler_blocks = scalers.view(n_scaler_blocks, SCALER_BLOCK)
    scaler_absmax = block_absmax(scalers, SCALER_BLOCK).unsqueeze(-1).expand(n_scaler_blocks, SCALER_BLOCK)
    factor = 256 / (2 * scaler_absmax)
    q = (scaler_blocks * factor).round().clamp(-128, 127)
    factor = factor[:, 0]
    q_scalers = q.flatten().to(torch.int8)
    del q, scaler_blocks, scalers, scaler_absmax
    # convert_to_norm_float_weight
    absmax = block_absmax(flat, BLOCK)
    scaled = flat.view(-1, BLOCK) / absmax.unsqueeze(-1).expand(-1, BLOCK)
    codes = (scaled.flatten().unsqueeze(-1) - table).abs().min(dim=-1).indices
    packed = (codes[::2] << 4 | codes[1::2]).to(torch.uint8)
    del codes, scaled, absmax
    return [packed, q_scalers, factor, mean, table]


def dequantize(inner, shape):
    """torchao 0.1 NF4Tensor.get_original_weight."""
    packed, q_scalers, factor, mean, table = inner
    first = (packed >> 4).to(torch.long)
    second = (packed & 0b1111).to(torch.long)
    d_first = table[first]
    d_second = table[second]
    scalers = (q_scalers.view(-1, SCALER_BLOCK) / factor.unsqueeze(-1)).flatten().to(torch.bfloat16) + mean
    repeated = scalers.unsqueeze(-1).expand(scalers.size(0), BLOCK // 2)
    s_first = d_first * repeated.flatten()
    s_second = d_second * repeated.flatten()
    out = torch.stack([s_first.unsqueeze(-1).transpose(0, 1), s_second.unsqueeze(-1).transpose(0, 1)], dim=-1).reshape(shape)
    del first, second, d_first, d_second, scalers, repeated, s_first, s_second
    return out


def records(prof):
    rs = [e for e in prof.profiler.kineto_results.events() if e.name() == "[memory]"]
    rs.sort(key=lambda e: e.start_us())
    return [e.nbytes() for e in rs]


def step(fn):
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        out = fn()
    cur = top = 0
    for b in records(prof):
        cur += b
        top = max(top, cur)
    return out, top, cur


def main():
    rows, cols = 1024, 4096
    n = rows * cols
    w = torch.randn(rows, cols).to(torch.bfloat16)
    inner, q_top, q_left = step(lambda: quantize(w))
    _, d_top, d_left = step(lambda: dequantize(inner, (rows, cols)))
    result = {
        "elements": n,
        "quantize": {"peak_over_input": q_top / n, "kept": q_left / n},
        "dequantize": {"peak": d_top / n, "kept": d_left / n},
    }
    json.dump(result, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()

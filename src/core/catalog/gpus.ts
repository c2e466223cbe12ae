// This file owns the built-in catalog of accelerators: device memory as the driver reports it, memory and link bandwidths, and dense peak throughput.
// It is pure data with no imports and no I/O, so both the VS Code extension and the CLI can bundle it.

/** One mebibyte in bytes. */
const MiB = 1024 * 1024;

/** A GPU's cudaTotal from a figure in MiB (torch's total_memory printout) or in GiB (an out-of-memory message). */
const mib = (mebibytes: number, source: string) => ({ bytes: mebibytes * MiB, source });
const gib = (gibibytes: number, source: string) => ({ bytes: Math.round(gibibytes * 1024 * MiB), source });

/**
 * The link between the accelerator and its host CPU, one direction, in GB/s (1e9 bytes per second).
 * Almost every device uses PCIe; GH200 reaches its Grace CPU over NVLink-C2C instead.
 */
export type HostLink =
  | { readonly kind: 'pcie'; readonly gen: 3 | 4 | 5 | 6; readonly lanes: 8 | 16; readonly GBps: number }
  | { readonly kind: 'nvlink-c2c'; readonly GBps: number };

export interface GpuSpec {
  /** Catalog name users type, e.g. 'A100-80GB', 'H100-80GB', 'RTX-4090', 'L4', 'T4'. Unique. */
  readonly id: string;
  /** Other spellings, including the device name nvidia-smi or rocm-smi prints; matching is case-insensitive. */
  readonly aliases: readonly string[];
  readonly vendor: 'nvidia' | 'amd' | 'intel' | 'google' | 'apple';
  /** NVIDIA: the CUDA compute capability [major, minor] (CUDA's device properties; NVIDIA's CUDA GPUs list). */
  readonly computeCapability?: readonly [number, number];
  /** AMD: the ROCm gfx target the device reports (gcnArchName without its feature flags). */
  readonly gfxTarget?: string;
  /** Total device memory as the driver reports it (nvidia-smi "Total", rocm-smi "VRAM Total Memory"), in bytes. */
  readonly memoryBytes: number;
  /**
   * The memory CUDA gives a process, where a source states it: torch.cuda.get_device_properties().total_memory, the
   * "total capacity" of PyTorch's out-of-memory message. The driver keeps the rest of its Total for itself (0.1-0.9
   * GiB). The fit is judged against it; where no source gives it, against memoryBytes, which is a little more.
   */
  readonly cudaTotal?: { readonly bytes: number; readonly source: string };
  /** The number in the product name, in GB. */
  readonly marketingMemoryGB: number;
  /** Memory bandwidth in GB/s (1e9 bytes per second). */
  readonly hbmBandwidthGBps: number;
  /** Host link, one direction, in GB/s. */
  readonly hostLink: HostLink;
  /** Peer link as published: the per-device bidirectional aggregate in GB/s. */
  readonly peerLink?: { readonly kind: 'nvlink' | 'infinity-fabric' | 'pcie'; readonly GBps: number };
  readonly bf16: boolean;
  readonly fp8: boolean;
  /** Dense (no sparsity) peak TFLOPS, using tensor or matrix cores where the device has them. */
  readonly denseTflops: {
    readonly fp32: number;
    readonly tf32?: number;
    readonly bf16?: number;
    readonly fp16: number;
    readonly fp8?: number;
  };
  /** Datasheet URL. */
  readonly source: string;
}

// Conventions used throughout the catalog:
// - memoryBytes is the nvidia-smi "Total" figure (or rocm-smi "VRAM Total Memory" for AMD). The figures
//   are the ones current drivers print with the default ECC setting: GDDR6 datacenter boards (T4, A10,
//   A10G, A40, L4, L40, L40S) reserve 1/16 of memory for ECC, while workstation and GeForce boards ship
//   with ECC off. Where no driver figure was known, marketing GiB * 1024 MiB is used and the entry says so.
// - cudaTotal is what CUDA gives a process (torch.cuda.get_device_properties().total_memory, the "total
//   capacity" of PyTorch's out-of-memory message): Total less what the driver keeps, 0.1-0.9 GiB. It comes
//   from a figure printed on a named GPU; where drivers print different ones, the lower of the usual Linux
//   figures, so that a fit holds on either. Entries without a printed figure have none.
// - hostLink.GBps is the theoretical one-direction PCIe rate after 128b/130b encoding
//   (gen3 x16 15.75, gen4 x16 31.5, gen5 x16 63).
// - peerLink is the published NVLink or Infinity Fabric aggregate. Devices without such a link get a
//   'pcie' peer link equal to both directions of the host link, because peer traffic then crosses PCIe.
// - denseTflops.fp16 and bf16 are tensor-core rates with FP32 accumulation, which is what mixed-precision
//   training uses. GeForce cards run FP32 accumulation at half their FP16-accumulate rate, so their figures
//   are half of the headline tensor numbers. fp32 is the non-tensor FP32 rate on NVIDIA and the FP32 matrix
//   rate on AMD Instinct, which is what an FP32 GEMM reaches on each.

const PCIE3_X16 = { kind: 'pcie', gen: 3, lanes: 16, GBps: 15.75 } as const;
const PCIE4_X8 = { kind: 'pcie', gen: 4, lanes: 8, GBps: 15.75 } as const;
const PCIE4_X16 = { kind: 'pcie', gen: 4, lanes: 16, GBps: 31.5 } as const;
const PCIE5_X16 = { kind: 'pcie', gen: 5, lanes: 16, GBps: 63 } as const;

const PEER_PCIE3 = { kind: 'pcie', GBps: 31.5 } as const;
const PEER_PCIE4_X8 = { kind: 'pcie', GBps: 31.5 } as const;
const PEER_PCIE4 = { kind: 'pcie', GBps: 63 } as const;
const PEER_PCIE5 = { kind: 'pcie', GBps: 126 } as const;

/** The two-way NVLink bridge on Ampere workstation and GeForce boards. */
const NVLINK_BRIDGE_AMPERE = { kind: 'nvlink', GBps: 112.5 } as const;

/** The A100 80GB SXM, which its PCIe board is with less memory bandwidth and the A800 with NVLink limited. */
const A100_80GB_SXM: GpuSpec = {
  id: 'A100-80GB',
  aliases: ['a100 80gb', 'a100-80g', 'a100-sxm4-80gb', 'nvidia a100-sxm4-80gb', 'a100 sxm 80gb', 'a100 80gb sxm'],
  vendor: 'nvidia',
  computeCapability: [8, 0],
  memoryBytes: 81920 * MiB,
  cudaTotal: gib(79.14, "PyTorch's out-of-memory message on an A100 80GB, lianqi1008/Control-GIC#6 (2025)"),
  marketingMemoryGB: 80,
  hbmBandwidthGBps: 2039,
  hostLink: PCIE4_X16,
  peerLink: { kind: 'nvlink', GBps: 600 },
  bf16: true,
  fp8: false,
  denseTflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
  source:
    'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
};

export const GPU_CATALOG: readonly GpuSpec[] = [
  // ---------------------------------------------------------------------------------------------
  // The GeForce cards come first, from Ampere through Ada to Blackwell.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'RTX-3060',
    aliases: ['rtx 3060', 'rtx3060', 'rtx 3060 12gb', 'geforce rtx 3060', 'nvidia geforce rtx 3060'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 12288 * MiB,
    cudaTotal: mib(
      12044,
      "torch total_memory=12044MB printed for an 'NVIDIA GeForce RTX 3060' in a public server listing",
    ),
    marketingMemoryGB: 12,
    hbmBandwidthGBps: 360,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 12.7, tf32: 12.7, bf16: 25.5, fp16: 25.5 },
    source: 'https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/',
  },
  {
    // The 10 GB launch model; the 12 GB refresh has a wider bus and is a different board.
    id: 'RTX-3080',
    aliases: ['rtx 3080', 'rtx3080', 'rtx 3080 10gb', 'geforce rtx 3080', 'nvidia geforce rtx 3080'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 10240 * MiB,
    cudaTotal: gib(9.78, "PyTorch's out-of-memory message on an RTX 3080, zai-org/CogVideo#34 (2023)"),
    marketingMemoryGB: 10,
    hbmBandwidthGBps: 760,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 29.8, tf32: 29.8, bf16: 59.5, fp16: 59.5 },
    source: 'https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf',
  },
  {
    id: 'RTX-3090',
    aliases: ['rtx 3090', 'rtx3090', 'rtx 3090 24gb', 'geforce rtx 3090', 'nvidia geforce rtx 3090'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 24576 * MiB,
    cudaTotal: gib(
      23.7,
      "PyTorch's out-of-memory message on an RTX 3090, GaoLii/DSP#10 (2022); total_memory=24268MB in transformers' debugging docs",
    ),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 936,
    hostLink: PCIE4_X16,
    peerLink: NVLINK_BRIDGE_AMPERE,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 35.6, tf32: 35.6, bf16: 71, fp16: 71 },
    source: 'https://www.nvidia.com/content/PDF/nvidia-ampere-ga-102-gpu-architecture-whitepaper-v2.pdf',
  },
  {
    id: 'RTX-3090-Ti',
    aliases: ['rtx 3090 ti', 'rtx3090ti', 'rtx 3090ti', 'geforce rtx 3090 ti', 'nvidia geforce rtx 3090 ti'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 24564 * MiB,
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 1008,
    hostLink: PCIE4_X16,
    peerLink: NVLINK_BRIDGE_AMPERE,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 40, tf32: 40, bf16: 80, fp16: 80 },
    source: 'https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3090-3090ti/',
  },
  {
    // The 4060 Ti has a PCIe 4.0 x8 interface.
    id: 'RTX-4060-Ti-16GB',
    aliases: ['rtx 4060 ti 16gb', 'rtx 4060 ti', 'rtx4060ti', 'geforce rtx 4060 ti', 'nvidia geforce rtx 4060 ti'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 16380 * MiB,
    cudaTotal: gib(15.55, "PyTorch's out-of-memory message on a 4060 Ti 16 GB, boson-ai/higgs-audio#48 (2025)"),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 288,
    hostLink: PCIE4_X8,
    peerLink: PEER_PCIE4_X8,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 22.1, tf32: 22.1, bf16: 44.1, fp16: 44.1, fp8: 88.3 },
    source: 'https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4060-4060ti/',
  },
  {
    id: 'RTX-4070-Ti-Super',
    aliases: [
      'rtx 4070 ti super',
      'rtx4070tisuper',
      'rtx 4070 ti s',
      'geforce rtx 4070 ti super',
      'nvidia geforce rtx 4070 ti super',
    ],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 16376 * MiB,
    cudaTotal: mib(
      15934,
      "torch total_memory=15934MB printed for an 'NVIDIA GeForce RTX 4070 Ti SUPER' in a public server log (2026)",
    ),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 672,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 44.1, tf32: 44.1, bf16: 88.2, fp16: 88.2, fp8: 176.4 },
    source: 'https://www.nvidia.com/en-us/geforce/graphics-cards/40-series/rtx-4070-family/',
  },
  {
    id: 'RTX-4080',
    aliases: ['rtx 4080', 'rtx4080', 'rtx 4080 16gb', 'geforce rtx 4080', 'nvidia geforce rtx 4080'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 16376 * MiB,
    cudaTotal: mib(
      16049,
      "torch total_memory=16049MB printed for an 'NVIDIA GeForce RTX 4080' in a public install guide",
    ),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 716.8,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 48.7, tf32: 48.7, bf16: 97.5, fp16: 97.5, fp8: 194.9 },
    source: 'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf',
  },
  {
    id: 'RTX-4090',
    aliases: ['rtx 4090', 'rtx4090', 'rtx 4090 24gb', 'geforce rtx 4090', 'nvidia geforce rtx 4090'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 24564 * MiB,
    cudaTotal: gib(
      23.64,
      "PyTorch's out-of-memory message on an RTX 4090 under Linux, ali-vilab/VGen#104 (2024) and 3DTopia/Phidias-Diffusion#8 (2025); " +
        '23.65 GiB in 2023-24 (MotrixLab/AiOS#29), the whole 23.99 GiB under Windows',
    ),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 1008,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 82.6, tf32: 82.6, bf16: 165.2, fp16: 165.2, fp8: 330.3 },
    source: 'https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf',
  },
  {
    // The FP32-accumulate tensor rates assume the GeForce half-rate rule also holds on Blackwell.
    id: 'RTX-5090',
    aliases: ['rtx 5090', 'rtx5090', 'rtx 5090 32gb', 'geforce rtx 5090', 'nvidia geforce rtx 5090'],
    vendor: 'nvidia',
    computeCapability: [12, 0],
    memoryBytes: 32607 * MiB,
    cudaTotal: gib(31.37, "PyTorch's out-of-memory message on an RTX 5090, Wan-Video/Wan2.1#465 (2025)"),
    marketingMemoryGB: 32,
    hbmBandwidthGBps: 1792,
    hostLink: PCIE5_X16,
    peerLink: PEER_PCIE5,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 104.8, tf32: 104.8, bf16: 209.5, fp16: 209.5, fp8: 419 },
    source: 'https://images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf',
  },

  // ---------------------------------------------------------------------------------------------
  // The workstation cards run tensor cores at full rate with FP32 accumulation.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'RTX-A4000',
    aliases: ['rtx a4000', 'a4000', 'nvidia rtx a4000'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 16376 * MiB,
    cudaTotal: gib(15.61, "PyTorch's out-of-memory message on an RTX A4000, DengKaiCQ/VGGT-Long#6 (2025)"),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 448,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 19.2, tf32: 19.2, bf16: 76.7, fp16: 76.7 },
    source: 'https://www.nvidia.com/content/dam/en-zz/Solutions/gtcs21/rtx-a4000/nvidia-rtx-a4000-datasheet.pdf',
  },
  {
    id: 'RTX-A5000',
    aliases: ['rtx a5000', 'a5000', 'nvidia rtx a5000'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 24564 * MiB,
    cudaTotal: mib(
      24114,
      "torch total_memory=24114MB printed for an 'NVIDIA RTX A5000' in a public log (24138MB in another)",
    ),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 768,
    hostLink: PCIE4_X16,
    peerLink: NVLINK_BRIDGE_AMPERE,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 27.8, tf32: 27.8, bf16: 111.1, fp16: 111.1 },
    source: 'https://www.nvidia.com/content/dam/en-zz/Solutions/gtcs21/rtx-a5000/nvidia-rtx-a5000-datasheet.pdf',
  },
  {
    id: 'RTX-A6000',
    aliases: ['rtx a6000', 'a6000', 'nvidia rtx a6000'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 49140 * MiB,
    cudaTotal: mib(
      48676,
      "torch total_memory=48676MB printed for an 'NVIDIA RTX A6000' in a public Triton kernel README",
    ),
    marketingMemoryGB: 48,
    hbmBandwidthGBps: 768,
    hostLink: PCIE4_X16,
    peerLink: NVLINK_BRIDGE_AMPERE,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 38.7, tf32: 38.7, bf16: 154.8, fp16: 154.8 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/quadro-product-literature/proviz-print-nvidia-rtx-a6000-datasheet-us-nvidia-1454980-r9-web%20(1).pdf',
  },
  {
    id: 'RTX-6000-Ada',
    aliases: ['rtx 6000 ada', 'rtx6000ada', 'rtx 6000 ada generation', 'nvidia rtx 6000 ada generation', '6000 ada'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 49140 * MiB,
    cudaTotal: mib(
      48622,
      "torch total_memory=48622MB printed for an 'NVIDIA RTX 6000 Ada Generation' with ECC off in a public environment dump (44.43 GiB with ECC on, " +
        'DINGYANB/MTVCrafter#21)',
    ),
    marketingMemoryGB: 48,
    hbmBandwidthGBps: 960,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 91.1, tf32: 182.1, bf16: 364.2, fp16: 364.2, fp8: 728.5 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/design-visualization/rtx-6000/proviz-print-rtx6000-datasheet-web-2504660.pdf',
  },

  // ---------------------------------------------------------------------------------------------
  // These are the datacenter PCIe boards.
  // ---------------------------------------------------------------------------------------------
  {
    // Turing has FP16 tensor cores but no BF16 or TF32 support.
    id: 'T4',
    aliases: ['tesla t4', 'nvidia t4', 'nvidia tesla t4', 't4 16gb'],
    vendor: 'nvidia',
    computeCapability: [7, 5],
    memoryBytes: 15360 * MiB,
    cudaTotal: gib(
      14.56,
      "PyTorch's out-of-memory message on a Tesla T4 with current drivers, " +
        'Zheng-Chong/CatVTON#133 and AlphaGPU/leetgpu-challenges#52 (2025); about 14.75 GiB with the drivers of 2020-21 (Colab)',
    ),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 320,
    hostLink: PCIE3_X16,
    peerLink: PEER_PCIE3,
    bf16: false,
    fp8: false,
    denseTflops: { fp32: 8.1, fp16: 65 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf',
  },
  {
    id: 'L4',
    aliases: ['nvidia l4', 'l4 24gb'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 23034 * MiB,
    cudaTotal: gib(22.03, "PyTorch's out-of-memory message on an L4, in three public logs (GCP g2 and Modal, 2025-26)"),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 300,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 30.3, tf32: 60, bf16: 121, fp16: 121, fp8: 242.5 },
    source: 'https://www.nvidia.com/en-us/data-center/l4/',
  },
  {
    id: 'L40',
    aliases: ['nvidia l40', 'l40 48gb'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 46068 * MiB,
    cudaTotal: gib(44.4, "PyTorch's out-of-memory message on an L40, QwenLM/Qwen3-VL#2097 (2026)"),
    marketingMemoryGB: 48,
    hbmBandwidthGBps: 864,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 90.5, tf32: 90.5, bf16: 181, fp16: 181, fp8: 362 },
    source: 'https://www.nvidia.com/en-us/data-center/l40/',
  },
  {
    id: 'L40S',
    aliases: ['nvidia l40s', 'l40s 48gb', 'l40-s'],
    vendor: 'nvidia',
    computeCapability: [8, 9],
    memoryBytes: 46068 * MiB,
    cudaTotal: gib(
      44.42,
      "PyTorch's out-of-memory message on an L40S, stepfun-ai/Step-Video-T2V#8 (2025); total_memory=45589MB (44.52 GiB) printed in another log",
    ),
    marketingMemoryGB: 48,
    hbmBandwidthGBps: 864,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 91.6, tf32: 183, bf16: 362.05, fp16: 362.05, fp8: 733 },
    source: 'https://www.nvidia.com/en-us/data-center/l40s/',
  },
  {
    id: 'A10',
    aliases: ['nvidia a10', 'a10 24gb'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 23028 * MiB,
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 600,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 31.2, tf32: 62.5, bf16: 125, fp16: 125 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf',
  },
  {
    // The A10G is an AWS-only variant with no public NVIDIA datasheet. Its tensor rates are the commonly quoted
    // half-rate figures (lower than the A10), so treat them as approximate.
    id: 'A10G',
    aliases: ['nvidia a10g', 'a10g 24gb', 'aws a10g'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 23028 * MiB,
    cudaTotal: gib(
      22.06,
      "PyTorch's out-of-memory message on an A10G (AWS g5) in public logs of 2025-26; 22.20 GiB in 2023, XavierXiao/Dreambooth-Stable-Diffusion#18",
    ),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 600,
    hostLink: PCIE4_X16,
    peerLink: PEER_PCIE4,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 31.2, tf32: 35, bf16: 70, fp16: 70 },
    source: 'https://aws.amazon.com/ec2/instance-types/g5/',
  },
  {
    id: 'A30',
    aliases: ['nvidia a30', 'a30 24gb'],
    vendor: 'nvidia',
    computeCapability: [8, 0],
    memoryBytes: 24576 * MiB,
    cudaTotal: gib(23.53, "PyTorch's out-of-memory message on an A30, google/RB-Modulation#5 (2024)"),
    marketingMemoryGB: 24,
    hbmBandwidthGBps: 933,
    hostLink: PCIE4_X16,
    peerLink: { kind: 'nvlink', GBps: 200 },
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 10.3, tf32: 82, bf16: 165, fp16: 165 },
    source: 'https://www.nvidia.com/content/dam/en-zz/Solutions/data-center/products/a30-gpu/pdf/a30-datasheet.pdf',
  },
  {
    id: 'A40',
    aliases: ['nvidia a40', 'a40 48gb'],
    vendor: 'nvidia',
    computeCapability: [8, 6],
    memoryBytes: 46068 * MiB,
    cudaTotal: mib(45416, "torch total_memory=45416MB printed for an 'NVIDIA A40' in a public server listing"),
    marketingMemoryGB: 48,
    hbmBandwidthGBps: 696,
    hostLink: PCIE4_X16,
    peerLink: NVLINK_BRIDGE_AMPERE,
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 37.4, tf32: 74.8, bf16: 149.7, fp16: 149.7 },
    source: 'https://images.nvidia.com/content/Solutions/data-center/a40/nvidia-a40-datasheet.pdf',
  },

  // ---------------------------------------------------------------------------------------------
  // These are the Pascal and Volta parts.
  // ---------------------------------------------------------------------------------------------
  {
    // P100 has no tensor cores; fp16 is the packed-half CUDA-core rate. Older drivers print 16280 MiB.
    id: 'P100-16GB',
    aliases: ['p100', 'tesla p100', 'p100-pcie-16gb', 'tesla p100-pcie-16gb', 'p100 16gb'],
    vendor: 'nvidia',
    computeCapability: [6, 0],
    memoryBytes: 16384 * MiB,
    cudaTotal: mib(
      16280,
      "torch total_memory=16280MB printed for a 'Tesla P100-PCIE-16GB' in Colab logs (torch 1.5-1.8)",
    ),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 732,
    hostLink: PCIE3_X16,
    peerLink: PEER_PCIE3,
    bf16: false,
    fp8: false,
    denseTflops: { fp32: 9.3, fp16: 18.7 },
    source: 'https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf',
  },
  {
    // The SXM2 module; older drivers print 16160 MiB.
    id: 'V100-16GB',
    aliases: ['v100 16gb', 'v100-sxm2-16gb', 'tesla v100-sxm2-16gb', 'tesla v100 16gb'],
    vendor: 'nvidia',
    computeCapability: [7, 0],
    memoryBytes: 16384 * MiB,
    cudaTotal: mib(
      16160,
      "torch total_memory=16160MB printed for a 'Tesla V100-SXM2-16GB' in YOLOv5 training logs (torch 1.7-1.8)",
    ),
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 900,
    hostLink: PCIE3_X16,
    peerLink: { kind: 'nvlink', GBps: 300 },
    bf16: false,
    fp8: false,
    denseTflops: { fp32: 15.7, fp16: 125 },
    source: 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf',
  },
  {
    id: 'V100-32GB',
    aliases: ['v100 32gb', 'v100-sxm2-32gb', 'tesla v100-sxm2-32gb', 'tesla v100 32gb'],
    vendor: 'nvidia',
    computeCapability: [7, 0],
    memoryBytes: 32768 * MiB,
    cudaTotal: gib(31.74, "PyTorch's out-of-memory message on a V100 32GB, liucongg/ChatGLM-Finetuning#73 (2023)"),
    marketingMemoryGB: 32,
    hbmBandwidthGBps: 900,
    hostLink: PCIE3_X16,
    peerLink: { kind: 'nvlink', GBps: 300 },
    bf16: false,
    fp8: false,
    denseTflops: { fp32: 15.7, fp16: 125 },
    source: 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf',
  },
  {
    id: 'V100-PCIe-16GB',
    aliases: ['v100 pcie', 'tesla v100-pcie-16gb', 'v100 pcie 16gb'],
    vendor: 'nvidia',
    computeCapability: [7, 0],
    memoryBytes: 16384 * MiB,
    marketingMemoryGB: 16,
    hbmBandwidthGBps: 900,
    hostLink: PCIE3_X16,
    peerLink: PEER_PCIE3,
    bf16: false,
    fp8: false,
    denseTflops: { fp32: 14, fp16: 112 },
    source: 'https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf',
  },

  // ---------------------------------------------------------------------------------------------
  // These are the Ampere A100 variants.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'A100-40GB',
    aliases: ['a100 40gb', 'a100-sxm4-40gb', 'nvidia a100-sxm4-40gb', 'a100 sxm 40gb'],
    vendor: 'nvidia',
    computeCapability: [8, 0],
    memoryBytes: 40960 * MiB,
    cudaTotal: gib(
      39.39,
      "PyTorch's out-of-memory message on an A100-SXM4-40GB with driver 525 (2023; " +
        "the 'total capacity' of lm-sys/FastChat#407's period); 39.50 GiB in a 2025 one, TianheWu/CoSeR#10",
    ),
    marketingMemoryGB: 40,
    hbmBandwidthGBps: 1555,
    hostLink: PCIE4_X16,
    peerLink: { kind: 'nvlink', GBps: 600 },
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
  },
  {
    // The 40 GB PCIe board runs at 250 W, so sustained throughput is lower than the SXM part even though the peaks match.
    id: 'A100-40GB-PCIe',
    aliases: ['a100 40gb pcie', 'a100-pcie-40gb', 'nvidia a100-pcie-40gb', 'a100 pcie 40gb'],
    vendor: 'nvidia',
    computeCapability: [8, 0],
    memoryBytes: 40960 * MiB,
    marketingMemoryGB: 40,
    hbmBandwidthGBps: 1555,
    hostLink: PCIE4_X16,
    peerLink: { kind: 'nvlink', GBps: 600 },
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 19.5, tf32: 156, bf16: 312, fp16: 312 },
    source:
      'https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf',
  },
  A100_80GB_SXM,
  {
    // The PCIe board pairs over an NVLink bridge at the same 600 GB/s as SXM; only its memory bandwidth differs.
    ...A100_80GB_SXM,
    id: 'A100-80GB-PCIe',
    aliases: ['a100 80gb pcie', 'a100-pcie-80gb', 'nvidia a100-pcie-80gb', 'nvidia a100 80gb pcie', 'a100 pcie 80gb'],
    cudaTotal: gib(79.14, "the SXM board's figure (the same 80 GB of HBM2e): " + A100_80GB_SXM.cudaTotal!.source),
    hbmBandwidthGBps: 1935,
  },

  {
    // The A100 for the Chinese market: the same GA100 part, memory and throughput, with NVLink limited to 400 GB/s
    // (Reuters via Tweakers, November 2022). nvidia-smi names it "NVIDIA A800-SXM4-80GB", 81920 MiB as the A100's.
    ...A100_80GB_SXM,
    id: 'A800-80GB',
    aliases: ['a800', 'a800 80gb', 'a800-80g', 'a800-sxm4-80gb', 'nvidia a800-sxm4-80gb', 'a800 sxm 80gb'],
    peerLink: { kind: 'nvlink', GBps: 400 },
    cudaTotal: gib(
      79.32,
      "PyTorch's out-of-memory message on an A800-80G, hahnyuan/PB-LLM#3 (2023: 79.33 GiB) and a vLLM issue (79.32 GiB)",
    ),
    source:
      'https://tweakers.net/nieuws/203182/nvidia-introduceert-a800-gpu-voor-china-die-niet-onder-exportrestricties-vs-valt.html',
  },

  // ---------------------------------------------------------------------------------------------
  // These are the Hopper parts.
  // ---------------------------------------------------------------------------------------------
  {
    id: 'H100-80GB',
    aliases: ['h100', 'h100 80gb', 'h100 sxm', 'h100-sxm', 'h100-sxm5-80gb', 'h100 80gb hbm3', 'nvidia h100 80gb hbm3'],
    vendor: 'nvidia',
    computeCapability: [9, 0],
    memoryBytes: 81559 * MiB,
    cudaTotal: {
      bytes: 85017493504,
      source:
        "torch.cuda.get_device_properties(0).total_memory on the GPU truth's H100 80GB HBM3 (tools/truth/gpu/results, " +
        'torch 2.11, CUDA 13.0); 81082-81090MB printed elsewhere',
    },
    marketingMemoryGB: 80,
    hbmBandwidthGBps: 3350,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'nvlink', GBps: 900 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 67, tf32: 494.7, bf16: 989.4, fp16: 989.4, fp8: 1978.9 },
    source: 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet',
  },
  {
    // The PCIe board pairs over an NVLink bridge at 600 GB/s. A 94 GB PCIe variant also exists and prints 94514 MiB.
    id: 'H100-PCIe',
    aliases: ['h100 pcie', 'h100 pcie 80gb', 'h100-pcie-80gb', 'nvidia h100 pcie'],
    vendor: 'nvidia',
    computeCapability: [9, 0],
    memoryBytes: 81559 * MiB,
    cudaTotal: mib(81008, "torch total_memory=81008MB printed for an 'NVIDIA H100 PCIe' in a public snippet"),
    marketingMemoryGB: 80,
    hbmBandwidthGBps: 2000,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'nvlink', GBps: 600 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 51, tf32: 378, bf16: 756.5, fp16: 756.5, fp8: 1513 },
    source: 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet',
  },
  {
    id: 'H100-NVL',
    aliases: ['h100 nvl', 'h100-nvl-94gb', 'h100 nvl 94gb', 'nvidia h100 nvl'],
    vendor: 'nvidia',
    computeCapability: [9, 0],
    memoryBytes: 95830 * MiB,
    cudaTotal: gib(93.09, "PyTorch's out-of-memory message on an H100 NVL in two public logs"),
    marketingMemoryGB: 94,
    hbmBandwidthGBps: 3900,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'nvlink', GBps: 600 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 60, tf32: 417.5, bf16: 835.5, fp16: 835.5, fp8: 1670.5 },
    source: 'https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet',
  },
  {
    id: 'H200',
    aliases: ['h200 141gb', 'h200-141gb', 'h200 sxm', 'h200-sxm', 'nvidia h200'],
    vendor: 'nvidia',
    computeCapability: [9, 0],
    memoryBytes: 143771 * MiB,
    cudaTotal: mib(
      143156,
      "torch total_memory=143156MB printed for an 'NVIDIA H200' on Modal (2025); the 139.80 GiB of several out-of-memory messages",
    ),
    marketingMemoryGB: 141,
    hbmBandwidthGBps: 4800,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'nvlink', GBps: 900 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 67, tf32: 494.7, bf16: 989.4, fp16: 989.4, fp8: 1978.9 },
    source: 'https://www.nvidia.com/en-us/data-center/h200/',
  },
  {
    // This is the 96 GB HBM3 Hopper in the GH200 480GB superchip (the "480GB" counts the Grace LPDDR5X too).
    // It reaches the Grace CPU over NVLink-C2C at 900 GB/s bidirectional (450 GB/s each way).
    id: 'GH200',
    aliases: ['gh200 480gb', 'nvidia gh200 480gb', 'gh200 96gb', 'grace hopper', 'gh200 120gb', 'nvidia gh200 120gb'],
    vendor: 'nvidia',
    computeCapability: [9, 0],
    memoryBytes: 97871 * MiB,
    marketingMemoryGB: 96,
    hbmBandwidthGBps: 4000,
    hostLink: { kind: 'nvlink-c2c', GBps: 450 },
    peerLink: { kind: 'nvlink', GBps: 900 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 67, tf32: 494.7, bf16: 989.4, fp16: 989.4, fp8: 1978.9 },
    source: 'https://resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip',
  },

  // ---------------------------------------------------------------------------------------------
  // This is the Blackwell datacenter part.
  // ---------------------------------------------------------------------------------------------
  {
    // HGX B200 per-GPU figures: 180 GB HBM3e (first announced as 192 GB), 8 TB/s, NVLink 5 at 1.8 TB/s.
    id: 'B200',
    aliases: ['b200 180gb', 'b200 192gb', 'b200-sxm', 'nvidia b200', 'hgx b200'],
    vendor: 'nvidia',
    computeCapability: [10, 0],
    memoryBytes: 183359 * MiB,
    cudaTotal: mib(
      182631,
      "torch total_memory=182631MB printed for an 'NVIDIA B200' (182642MB on Modal); the 178.35 GiB of several out-of-memory messages",
    ),
    marketingMemoryGB: 180,
    hbmBandwidthGBps: 8000,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'nvlink', GBps: 1800 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 75, tf32: 1125, bf16: 2250, fp16: 2250, fp8: 4500 },
    source: 'https://www.nvidia.com/en-us/data-center/hgx/',
  },

  // ---------------------------------------------------------------------------------------------
  // For AMD Instinct, fp32 is the matrix-core rate and memoryBytes is the rocm-smi "VRAM Total Memory".
  // ---------------------------------------------------------------------------------------------
  {
    id: 'MI210',
    aliases: ['instinct mi210', 'amd instinct mi210', 'mi210 64gb'],
    vendor: 'amd',
    gfxTarget: 'gfx90a',
    memoryBytes: 65520 * MiB,
    marketingMemoryGB: 64,
    hbmBandwidthGBps: 1638.4,
    hostLink: PCIE4_X16,
    peerLink: { kind: 'infinity-fabric', GBps: 300 },
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 45.3, bf16: 181, fp16: 181 },
    source: 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi210.html',
  },
  {
    // An MI250X package holds two GCDs that the driver and PyTorch expose as two separate 64 GB devices, so
    // this entry describes one GCD: half the package's 128 GB, 3.2 TB/s and 383 TFLOPS. The peer link is
    // half of the package's eight 100 GB/s Infinity Fabric links, which is an approximation.
    id: 'MI250X',
    aliases: ['instinct mi250x', 'amd instinct mi250x', 'mi250x gcd'],
    vendor: 'amd',
    gfxTarget: 'gfx90a',
    memoryBytes: 65520 * MiB,
    marketingMemoryGB: 128,
    hbmBandwidthGBps: 1638.4,
    hostLink: PCIE4_X16,
    peerLink: { kind: 'infinity-fabric', GBps: 400 },
    bf16: true,
    fp8: false,
    denseTflops: { fp32: 47.9, bf16: 191.5, fp16: 191.5 },
    source: 'https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html',
  },
  {
    id: 'MI300X',
    aliases: ['instinct mi300x', 'amd instinct mi300x', 'amd instinct mi300x vf', 'mi300x 192gb'],
    vendor: 'amd',
    gfxTarget: 'gfx942',
    memoryBytes: 196288 * MiB,
    marketingMemoryGB: 192,
    hbmBandwidthGBps: 5300,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'infinity-fabric', GBps: 896 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, fp8: 2614.9 },
    source: 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html',
  },
  {
    // No driver-reported total was available for MI325X, so memoryBytes is 256 GiB (marketing GB * 1024 MiB).
    id: 'MI325X',
    aliases: ['instinct mi325x', 'amd instinct mi325x', 'mi325x 256gb'],
    vendor: 'amd',
    gfxTarget: 'gfx942',
    memoryBytes: 256 * 1024 * MiB,
    marketingMemoryGB: 256,
    hbmBandwidthGBps: 6000,
    hostLink: PCIE5_X16,
    peerLink: { kind: 'infinity-fabric', GBps: 896 },
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 163.4, tf32: 653.7, bf16: 1307.4, fp16: 1307.4, fp8: 2614.9 },
    source: 'https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html',
  },

  // ---------------------------------------------------------------------------------------------
  // This is the Intel Gaudi part.
  // ---------------------------------------------------------------------------------------------
  {
    // hl-smi reports 98304 MiB, which equals marketing GB * 1024 MiB. Gaudi 2 scales out over 24 on-chip 100 GbE
    // RoCE ports rather than a GPU-style peer link, so peerLink is left out. The FP32 figure is the vector (TPC)
    // rate and is approximate; BF16, FP16 and FP8 are the matrix-engine (MME) rates.
    id: 'Gaudi2',
    aliases: ['gaudi 2', 'gaudi2 96gb', 'intel gaudi 2', 'habana gaudi2', 'hl-225'],
    vendor: 'intel',
    memoryBytes: 96 * 1024 * MiB,
    marketingMemoryGB: 96,
    hbmBandwidthGBps: 2450,
    hostLink: PCIE4_X16,
    bf16: true,
    fp8: true,
    denseTflops: { fp32: 11, bf16: 432, fp16: 432, fp8: 865 },
    source: 'https://www.intel.com/content/www/us/en/products/details/processors/ai-accelerators/gaudi2.html',
  },
];

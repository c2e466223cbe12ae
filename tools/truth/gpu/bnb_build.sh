#!/usr/bin/env bash
# bitsandbytes for the GPU points (qlora.py), assembled here into DIR, which then travels with the checkout and is
# BNB_SRC there: DIR/bitsandbytes, the Python package of RELEASE, with its CUDA library built from the same source
# for the H100 alone (compute capability 9.0) against CUDA 13.0 (CUDA_HOME, else /usr/local/cuda), the runtime of the GPU machine's torch. bitsandbytes
# is not on the package index; its build needs nvcc 13.0 and cuBLAS / cuSPARSE headers, which the index's
# nvidia-cublas and nvidia-cusparse wheels hold (put beside the toolkit in a scratch copy).
#
#   tools/truth/gpu/bnb_build.sh DIR BNB_GIT [RELEASE]    # BNB_GIT: a clone of github.com/bitsandbytes-foundation/bitsandbytes
set -euo pipefail
dir=${1:?usage: bnb_build.sh DIR BNB_GIT [RELEASE]}
git_dir=${2:?usage: bnb_build.sh DIR BNB_GIT [RELEASE]}
release=${3:-0.50.1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cuda=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
mkdir -p "$scratch/src" "$scratch/wheels" "$scratch/x"
git -C "$git_dir" archive "$release" | tar -x -C "$scratch/src"
python3 -m pip download --quiet --retries 0 --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d "$scratch/wheels" "nvidia-cublas==13.*" "nvidia-cusparse==12.*"
for w in "$scratch"/wheels/*.whl; do (cd "$scratch/x" && python3 -m zipfile -e "$w" .); done
cp -r "$cuda/." "$scratch/cuda"  # a copy: the wheels' files go beside its own
cp -r "$scratch"/x/nvidia/cu13/include/* "$scratch/cuda/include/"
cp -r "$scratch"/x/nvidia/cu13/lib/* "$scratch/cuda/lib64/"
(cd "$scratch/cuda/lib64" && ln -sf libcublas.so.13 libcublas.so && ln -sf libcublasLt.so.13 libcublasLt.so && ln -sf libcusparse.so.12 libcusparse.so)
PATH="$scratch/cuda/bin:$PATH" cmake -S "$scratch/src" -B "$scratch/build" -DCOMPUTE_BACKEND=cuda -DCOMPUTE_CAPABILITY=90 \
  -DCMAKE_CUDA_COMPILER="$scratch/cuda/bin/nvcc" -DCUDAToolkit_ROOT="$scratch/cuda" -DCMAKE_BUILD_TYPE=Release > "$scratch/cmake.log"
PATH="$scratch/cuda/bin:$PATH" cmake --build "$scratch/build" -j"$(nproc)" >> "$scratch/cmake.log"
rm -rf "$dir/bitsandbytes"
mkdir -p "$dir"
cp -r "$scratch/src/bitsandbytes" "$dir/"
ls -la "$dir"/bitsandbytes/libbitsandbytes_cuda*.so

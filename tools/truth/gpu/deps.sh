#!/usr/bin/env bash
# What the DeepSpeed points (ds_point.py) need on a GPU machine without network, assembled here into DIR, which then
# travels with the checkout: DIR/ds-src (DEEPSPEED_SRC: 0.19.6, the CPU harness's release), DIR/ds-<release> for the
# points that name one (DEEPSPEED_SRC_DIR=DIR), and DIR/site (PYTHONPATH) with the pure-Python packages DeepSpeed
# imports that the machine lacks (py-cpuinfo, einops). pydantic and msgpack have compiled parts: truthlib/zero.py puts
# its stand-ins on the path where they are missing.
#
#   tools/truth/gpu/deps.sh DIR DEEPSPEED_GIT     # DEEPSPEED_GIT: a clone of github.com/deepspeedai/DeepSpeed (bare or not)
set -euo pipefail
dir=${1:?usage: deps.sh DIR DEEPSPEED_GIT}
git_dir=${2:?usage: deps.sh DIR DEEPSPEED_GIT}
mkdir -p "$dir/site"
python3 -m pip install --quiet --retries 0 --no-deps --target "$dir/site" py-cpuinfo einops
# 0.19.6 at edaa7221, the commit the CPU fixtures name; the others at their tags
for pair in 0.19.6:edaa7221 0.16.5:v0.16.5 0.15.0:v0.15.0 0.14.4:v0.14.4 0.12.6:v0.12.6 0.10.3:v0.10.3; do
  release=${pair%%:*}
  rm -rf "$dir/ds-$release"
  mkdir -p "$dir/ds-$release"
  git -C "$git_dir" archive "${pair#*:}" deepspeed op_builder accelerator version.txt | tar -x -C "$dir/ds-$release"
done
rm -rf "$dir/ds-src"
cp -r "$dir/ds-0.19.6" "$dir/ds-src"
du -sh "$dir"

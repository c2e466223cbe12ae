#!/usr/bin/env bash
# Makes the truth harness's virtual environments from the machine's package index (no network needed beyond it):
#   tools/truth/.venv   torch 2.13 (CPU), transformers 5.17, peft, accelerate, trl   (the default)
#   tools/truth/.venv4  torch 2.13 (CPU), transformers 4.57.6, peft, accelerate     (scenarios with transformers_version 4.x)
# Usage: bash tools/truth/setup.sh [--only5]
set -euo pipefail
cd "$(dirname "$0")"
PIP_FLAGS=(--retries 0 --quiet)   # an unreachable default index fails at once instead of retrying

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/pip install "${PIP_FLAGS[@]}" torch==2.13.0 transformers==5.17.0 peft accelerate trl pyyaml

# DeepSpeed (the `zero` suite, truthlib/zero.py) is not on the package index: its pure-Python dependencies are, and
# run.py takes the source from a checkout named by DEEPSPEED_SRC (git clone https://github.com/deepspeedai/DeepSpeed;
# the fixtures were made at v0.19.6, commit edaa7221). No C++ op is built; hjson has a shim in truthlib/shims.
.venv/bin/pip install "${PIP_FLAGS[@]}" msgpack ninja py-cpuinfo pydantic einops

# LitGPT (the `litgpt` suite, truthlib/litgpt.py) is not on the package index either: LITGPT_SRC names a checkout of
# Lightning-AI/litgpt (the fixtures were made at 0.5.13); its utils.py imports Lightning, which is.
.venv/bin/pip install "${PIP_FLAGS[@]}" lightning psutil

# bitsandbytes (the `qlora` suite, truthlib/bnb.py) is not on the package index either: BNB_SRC names a checkout of
# bitsandbytes-foundation/bitsandbytes (the fixtures were made at 0.50.1); its Python code runs without a native library.

if [ "${1:-}" = "--only5" ]; then exit 0; fi
if [ ! -x .venv4/bin/python ]; then
  python3 -m venv .venv4
fi
# transformers 4.57.6 pins huggingface-hub<1.0, which this index does not carry; the hub client is not used (models
# are built from configs, nothing is downloaded), so 4.57.6 is installed without its pins and its import-time
# version check is relaxed for huggingface-hub only. tokenizers 0.22 is the range 4.57 accepts.
.venv4/bin/pip install "${PIP_FLAGS[@]}" torch==2.13.0 peft accelerate datasets pyyaml
.venv4/bin/pip install "${PIP_FLAGS[@]}" --no-deps --force-reinstall transformers==4.57.6 tokenizers==0.22.2
transformers_init="importlib.util.find_spec('transformers').origin"
table=$(.venv4/bin/python -c "import importlib.util, os; print(os.path.join(os.path.dirname($transformers_init), 'dependency_versions_table.py'))")
sed -i 's/"huggingface-hub": "huggingface-hub>=0.34.0,<1.0"/"huggingface-hub": "huggingface-hub>=0.34.0"/' "$table"
.venv4/bin/python -c "import transformers, peft; print('transformers', transformers.__version__, 'peft', peft.__version__)"

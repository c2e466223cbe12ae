"""Distribution metadata for a DeepSpeed source checkout. transformers and Accelerate take DeepSpeed as installed only
when its metadata is found, and decide at their import (transformers integrations/deepspeed.py is_deepspeed_available:
HfDeepSpeedConfig's base class; accelerate/utils/__init__.py: the DeepSpeed wrappers it exports); the checkout has
none. point.py puts a dist-info with the checkout's release on the path before anything imports them, for the points
that run a trainer under DeepSpeed (hf_zero.py). No heavy import here."""
import importlib
import os
import sys
import tempfile


def source_dir(harness):
    """The checkout a point runs: DEEPSPEED_SRC_DIR/ds-<release> for a point that names one, else DEEPSPEED_SRC."""
    release = harness.get("deepspeed")
    return os.path.join(os.environ["DEEPSPEED_SRC_DIR"], "ds-" + release) if release else os.environ["DEEPSPEED_SRC"]


def install(src):
    """The checkout and a dist-info of its release on the path (both are looked for: the module and its metadata);
    returns the dist-info's directory."""
    if src not in sys.path:
        sys.path.insert(0, src)
    with open(os.path.join(src, "version.txt")) as f:
        release = f.read().strip()
    return dist_info("deepspeed", release)


def dist_info(name, release):
    """A dist-info of `name` at `release` in a directory of its own, put on the path (importlib.metadata finds the
    package installed); returns the directory. Also for bitsandbytes' checkout (bnb.py)."""
    meta = tempfile.mkdtemp(prefix=f"truth-{name}-meta-")
    info = os.path.join(meta, f"{name}-{release}.dist-info")
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {release}\n")
    sys.path.insert(0, meta)
    importlib.invalidate_caches()
    return meta

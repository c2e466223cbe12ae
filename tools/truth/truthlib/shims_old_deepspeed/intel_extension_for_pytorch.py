"""Stand-in for Intel's extension, which DeepSpeed's CPU accelerator before 0.14 imports to be chosen (real_accelerator.py)
and never calls on the path the truth harness runs (truthlib/zero.py old_release_shims)."""

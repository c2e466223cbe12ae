"""Stand-in for oneCCL's bindings, which DeepSpeed's CPU accelerator before 0.14 imports at load (cpu_accelerator.py);
the fake process group does the collectives (truthlib/zero.py old_release_shims)."""

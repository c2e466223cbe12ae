"""CPU ground truth for VRAM Lens: real transformers / PEFT / Accelerate / TRL code, profiled allocations."""

"""DeepSpeed ZeRO configs the multi-GPU SFT presets point at (docs/training.md)."""

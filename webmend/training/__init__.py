"""Training: LlamaFactory SFT from an export manifest (`webmend train sft`, docs/training.md).

This package runs in the pipeline's environment and never imports torch: it renders configs,
checks manifests and starts the training environment's programs as child processes
(`env.py`). The code that needs torch lives in `trainenv/` and runs there."""

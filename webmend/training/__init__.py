"""Training: LlamaFactory SFT from a manifest, then RL with browser rewards (issue 16). Not built yet."""

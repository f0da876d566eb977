"""Placeholder for torchaudio in webmend's training environment (scripts/install-train.sh).

LlamaFactory 0.9.5 imports torchaudio at the top of its multimodal plugin, even for text-only
training, and PyPI's torchaudio wheels do not load beside the CPU torch this environment pins. Text
SFT never calls it; audio data would reach this error instead of a crash deep in a worker.
No dist-info is installed with it, so transformers still reports torchaudio as unavailable."""


def __getattr__(name: str):
    raise RuntimeError(f"torchaudio.{name}: audio is not supported in webmend's training environment "
                       "(text SFT only); install a torchaudio that matches torch to train on audio")

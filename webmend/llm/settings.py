"""Generation settings: the per-call limits and the run's spend cap, as one typed object.

`webmend generate` builds it from its flags and the build-refined-pool flow takes it as its
`generation` parameter (a pydantic model, so Prefect validates a deployment run's JSON against it),
so both paths drive the provider the same way. Field names are the CLI flags' (docs/generation.md).
No litellm import here: building a client imports it, reading settings does not.
"""

from __future__ import annotations

import argparse

from pydantic import BaseModel, ConfigDict, Field

from webmend.config import add_model_flags, model_from_flags


class GenerationSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int | None = Field(None, ge=1, description="completion token limit per call")
    seed: int | None = Field(None, description="sample k is sent seed + k")
    workers: int = Field(4, ge=1, description="concurrent calls to the provider")
    rpm: int | None = Field(None, ge=1, description="requests per minute to the provider")
    tpm: int | None = Field(None, ge=1, description="tokens per minute to the provider")
    max_total_tokens: int | None = Field(None, ge=1, description="spend cap: tokens in this run")
    max_cost: float | None = Field(None, gt=0, description="spend cap: USD in this run (known prices)")
    timeout: float = Field(600.0, gt=0, description="seconds per call before it is retried")
    max_retries: int = Field(5, ge=0, description="retries of one call on 429/5xx/timeouts")

    def limiters(self):
        """Per-provider limiters; clients built with the same object share each provider's limits."""
        from webmend.llm.client import Limiters
        from webmend.llm.limits import Limits

        return Limiters(Limits(concurrency=self.workers, rpm=self.rpm, tpm=self.tpm))

    def client(self, model: str, *, spend_cap: bool = True, limiters=None):
        """An LLMClient bound by these limits; spend_cap=False for calls outside the run's budget."""
        from webmend.llm.client import LLMClient
        from webmend.llm.limits import SpendCap
        from webmend.llm.retry import Backoff

        cap = SpendCap(self.max_total_tokens, self.max_cost) if spend_cap else None
        return LLMClient(model, limiters=limiters or self.limiters(), backoff=Backoff(max_retries=self.max_retries),
                         timeout_s=self.timeout, spend_cap=cap)


def add_settings_arguments(p: argparse.ArgumentParser) -> None:
    """The settings as flags (`--max-tokens`, `--rpm`, ...); defaults come from the model."""
    add_model_flags(p, GenerationSettings)


def settings_from_args(args: argparse.Namespace) -> GenerationSettings:
    return model_from_flags(args, GenerationSettings)

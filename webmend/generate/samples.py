"""What to generate: the samples of each prompt and the parameters of each call.

Sample ids follow the evaluator's convention (`webmend.evaluate.inputs.match_item`): sample 0 of prompt
P keeps the id `P`, sample k > 0 is `P#k`. So asking for more samples later keeps the first one's id
and cache entry, and every sample still matches test item P.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from webmend.generate.prompts import SAFE_DEMO_SUFFIX, SYSTEM_PROMPT, PromptIn
from webmend.schemas.hashing import sha256_hex


@dataclass(frozen=True)
class GenerationConfig:
    model: str
    samples: int = 1  # per temperature
    temperatures: tuple[float | None, ...] = (None,)  # None: the provider's default
    max_tokens: int | None = None
    seed: int | None = None  # sample k is sent seed + k (providers that support it)
    extra_params: dict = field(default_factory=dict)  # further litellm completion parameters

    def __post_init__(self):
        if self.samples < 1:
            raise ValueError("samples must be at least 1")
        if not self.temperatures:
            raise ValueError("give at least one temperature (or None for the provider default)")
        if "api_key" in self.extra_params:
            raise ValueError("api_key is not accepted: keys come from the environment")

    @classmethod
    def from_settings(cls, model: str, settings, samples: int = 1,
                      temperatures=None) -> "GenerationConfig":
        """What to ask, from the run's GenerationSettings (only max_tokens and seed change the calls)."""
        return cls(model, samples=samples, temperatures=tuple(temperatures) if temperatures else (None,),
                   max_tokens=settings.max_tokens, seed=settings.seed)

    def config_hash(self) -> str:
        """Everything that changes what the model is asked (not timeouts or rate limits)."""
        blob = json.dumps({
            "model": self.model, "samples": self.samples, "temperatures": list(self.temperatures),
            "max_tokens": self.max_tokens, "seed": self.seed, "extra": self.extra_params,
            "system": SYSTEM_PROMPT, "suffix": SAFE_DEMO_SUFFIX,
        }, sort_keys=True, default=str)
        return sha256_hex(blob)[:16]


@dataclass(frozen=True)
class Sample:
    prompt: PromptIn
    index: int  # 0-based over all temperatures: k = temperature_position * samples + repeat
    temperature: float | None

    @property
    def id(self) -> str:
        return sample_id(self.prompt.id, self.index)


def sample_id(prompt_id: str, index: int) -> str:
    return prompt_id if index == 0 else f"{prompt_id}#{index}"


def plan_samples(prompts: list[PromptIn], cfg: GenerationConfig) -> list[Sample]:
    """Every sample, in output order: prompt by prompt, then temperature, then repeat."""
    return [
        Sample(prompt, t_pos * cfg.samples + repeat, temperature)
        for prompt in prompts
        for t_pos, temperature in enumerate(cfg.temperatures)
        for repeat in range(cfg.samples)
    ]


def params_for(sample: Sample, cfg: GenerationConfig) -> dict:
    """The litellm parameters of one sample's call (part of its cache key)."""
    params = dict(cfg.extra_params)
    if sample.temperature is not None:
        params["temperature"] = sample.temperature
    if cfg.max_tokens is not None:
        params["max_tokens"] = cfg.max_tokens
    if cfg.seed is not None:
        params["seed"] = cfg.seed + sample.index
    return params

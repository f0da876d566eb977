"""GenerationSettings: one object from the CLI flags or a flow parameter to the client that obeys it."""

from __future__ import annotations

import argparse

import pytest
from pydantic import ValidationError

from webmend.generate.samples import GenerationConfig
from webmend.llm.settings import GenerationSettings, add_settings_arguments, settings_from_args


def parse(*argv: str) -> GenerationSettings:
    p = argparse.ArgumentParser()
    add_settings_arguments(p)
    return settings_from_args(p.parse_args(list(argv)))


def test_flags_default_to_the_model_defaults():
    assert parse() == GenerationSettings()
    assert (GenerationSettings().workers, GenerationSettings().timeout, GenerationSettings().max_retries) == (4, 600.0, 5)


def test_every_setting_reaches_the_client():
    s = parse("--max-tokens", "900", "--seed", "3", "--workers", "2", "--rpm", "30", "--tpm", "9000",
              "--max-total-tokens", "5000", "--max-cost", "0.25", "--timeout", "12.5", "--max-retries", "1")
    client = s.client("openai/any-model")
    assert (client.limiter.limits.concurrency, client.limiter.limits.rpm, client.limiter.limits.tpm) == (2, 30, 9000)
    assert (client.spend_cap.max_tokens, client.spend_cap.max_cost_usd) == (5000, 0.25)
    assert (client.timeout_s, client.backoff.max_retries) == (12.5, 1)
    assert s.client("openai/any-model", spend_cap=False).spend_cap is None
    shared = s.limiters()  # one provider, one limiter, whichever client calls it
    assert s.client("openai/a", limiters=shared).limiter is s.client("openai/b", limiters=shared).limiter
    cfg = GenerationConfig.from_settings("openai/any-model", s, samples=2, temperatures=[0.2, 0.8])
    assert (cfg.max_tokens, cfg.seed, cfg.samples, cfg.temperatures) == (900, 3, 2, (0.2, 0.8))


def test_a_flow_parameter_as_json_is_validated():
    assert GenerationSettings.model_validate({"rpm": 10, "timeout": 30}).rpm == 10
    for bad in ({"workers": 0}, {"rpm": 0}, {"max_cost": -1}, {"timeout": 0}, {"max_retries": -1},
                {"api_key": "sk-x"}):
        with pytest.raises(ValidationError):
            GenerationSettings.model_validate(bad)


def test_limits_do_not_change_what_is_asked():
    """Only max_tokens and seed are in the generation config hash (so in the cache and committed keys)."""
    base = GenerationConfig.from_settings("openai/m", GenerationSettings()).config_hash()
    assert GenerationConfig.from_settings("openai/m", GenerationSettings(rpm=5, timeout=9, workers=1)).config_hash() == base
    assert GenerationConfig.from_settings("openai/m", GenerationSettings(max_tokens=100)).config_hash() != base

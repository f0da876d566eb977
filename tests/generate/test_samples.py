"""Sample ids, order and call parameters."""

import pytest

from webmend.evaluate.inputs import match_item
from webmend.generate.prompts import PromptIn
from webmend.generate.samples import GenerationConfig, params_for, plan_samples


def test_single_sample_keeps_the_prompt_id():
    samples = plan_samples([PromptIn("a", "x"), PromptIn("b", "y")], GenerationConfig("openai/m"))
    assert [s.id for s in samples] == ["a", "b"]


def test_samples_at_several_temperatures_follow_the_evaluator_convention():
    cfg = GenerationConfig("openai/m", samples=2, temperatures=(0.2, 0.8), seed=10, max_tokens=512)
    samples = plan_samples([PromptIn("game_snake", "Snake")], cfg)
    assert [s.id for s in samples] == ["game_snake", "game_snake#1", "game_snake#2", "game_snake#3"]
    assert [s.temperature for s in samples] == [0.2, 0.2, 0.8, 0.8]
    assert [params_for(s, cfg) for s in samples][1] == {"temperature": 0.2, "max_tokens": 512, "seed": 11}
    items = {"game_snake": {"id": "game_snake"}}
    assert all(match_item(items, s.id) is items["game_snake"] for s in samples)


def test_provider_default_temperature_sends_no_temperature():
    cfg = GenerationConfig("openai/m")
    assert params_for(plan_samples([PromptIn("a", "x")], cfg)[0], cfg) == {}


def test_config_hash_changes_with_what_the_model_is_asked():
    assert GenerationConfig("openai/m").config_hash() == GenerationConfig("openai/m").config_hash()
    assert GenerationConfig("openai/m").config_hash() != GenerationConfig("openai/m", max_tokens=5).config_hash()


def test_invalid_configs():
    with pytest.raises(ValueError):
        GenerationConfig("openai/m", samples=0)
    with pytest.raises(ValueError, match="api_key"):
        GenerationConfig("openai/m", extra_params={"api_key": "x"})

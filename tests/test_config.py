"""webmend.config's settings-model flags: one declaration gives the flag, its type, choices and default."""

from __future__ import annotations

import argparse
from typing import Literal

import pytest
from pydantic import Field, ValidationError

from webmend.config import Frozen, add_model_flags, model_from_flags


class Example(Frozen):
    files: list[str] = Field([], description="one per flag")
    bands: list[Literal["Low", "Mid"]] | None = None
    rounds: int = Field(8, ge=1)
    cost: float | None = None
    strict: bool = False
    extra: dict = {}


def parsed(argv: list[str], **kw):
    p = argparse.ArgumentParser()
    add_model_flags(p, Example, "ex_", one_per_flag=("files",), **kw)
    p.add_argument("rest", nargs="*")
    return p, p.parse_args(argv)


def test_flags_take_types_choices_and_keep_defaults():
    _, a = parsed(["--ex-files", "a", "--ex-files", "b", "page.html", "--ex-bands", "Low", "Mid", "--ex-cost", "0.5",
                   "--ex-strict"])
    assert a.rest == ["page.html"]  # a one-per-flag list does not swallow what follows it
    assert model_from_flags(a, Example, "ex_") == Example(files=["a", "b"], bands=["Low", "Mid"], cost=0.5, strict=True)
    _, none = parsed([])
    assert model_from_flags(none, Example, "ex_", extra={"k": 1}) == Example(extra={"k": 1})


def test_values_are_validated_by_the_model_and_choices_by_argparse():
    _, a = parsed(["--ex-rounds", "0"])
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        model_from_flags(a, Example, "ex_")
    p, _ = parsed([])
    with pytest.raises(SystemExit):
        p.parse_args(["--ex-bands", "High"])


def test_renamed_and_positional_fields():
    p = argparse.ArgumentParser()
    add_model_flags(p, Example, flags={"rounds": "max-rounds"}, positional="files")
    a = p.parse_args(["x.html", "y.html", "--max-rounds", "3"])
    assert model_from_flags(a, Example) == Example(files=["x.html", "y.html"], rounds=3)

"""Prompt files for `webmend generate` (module webmend/generate/prompts.py)."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

from webmend.generate.prompts import SAFE_DEMO_SUFFIX, SYSTEM_PROMPT, load_prompts, messages_for


def test_htmlbench_items_are_prompts():
    prompts = load_prompts(ROOT / "data" / "samples" / "items.jsonl")
    assert len(prompts) >= 10 and prompts[0].id == "apps_expense_tracker"
    assert prompts[0].prompt.startswith("Build a single-page personal expense tracker")


def test_parquet_prompts(tmp_path):
    path = tmp_path / "prompts.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "prompt": ["Make a clock", "Make a chart"], "family": [None, None]}), path)
    assert [(p.id, p.prompt) for p in load_prompts(path)] == [("a", "Make a clock"), ("b", "Make a chart")]


@pytest.mark.parametrize("lines, message", [
    ([{"id": "a", "prompt": "x"}, {"id": "a", "prompt": "y"}], "duplicate prompt id"),
    ([{"id": "a#1", "prompt": "x"}], "marks sample ids"),
    ([{"id": "a", "prompt": "  "}], "no 'prompt' text"),
    ([{"prompt": "x"}], "needs an 'id'"),
])
def test_bad_prompt_files_are_errors(tmp_path, lines, message):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines))
    with pytest.raises(ValueError, match=message):
        load_prompts(path)


def test_messages_carry_the_system_prompt_and_the_safe_demo_suffix_only_on_request():
    plain = messages_for("Build a checkout form")
    assert plain == [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "Build a checkout form"}]
    safe = messages_for("Build a checkout form", safe_demo=True)
    assert safe[1]["content"].startswith("Build a checkout form") and safe[1]["content"].endswith(SAFE_DEMO_SUFFIX)

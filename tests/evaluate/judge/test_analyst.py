"""Analyst messages, answer validation and the Scorer's view of the answer."""

import base64
import json

import pytest
from judge_fixtures import analyst_answer, judge_input, png
from pydantic import ValidationError

from webmend.config import JudgeConfig
from webmend.evaluate.judge.analyst import build_messages, page_data_block, scorer_view, validate


def test_page_data_block_is_escaped_json():
    block = page_data_block(["a </page_data> <b>&amp;", 'quote " and \\'], ["keyframe 1: click"])
    assert block.count("</page_data>") == 1 and "<b>" not in block
    inner = block.removeprefix("<page_data>\n").removesuffix("\n</page_data>")
    assert json.loads(inner) == {"visible_text": ["a </page_data> <b>&amp;", 'quote " and \\'],
                                 "keyframe_annotations": ["keyframe 1: click"]}


def test_messages_hold_page_text_only_in_the_block():
    inp = judge_input(visible_text=["Hello reader"])
    frames = [(png(), "first paint: Hello reader")]
    system, user = build_messages(inp, frames, JudgeConfig())
    assert system["role"] == "system" and "Hello reader" not in system["content"]
    text = user["content"][0]["text"]
    before, rest = text.split("<page_data>")
    inside, after = rest.split("</page_data>")
    assert "Hello reader" in inside and "Hello reader" not in before + after
    assert "R1: a start button starts the countdown" in before  # the caller's requirements, numbered
    assert "Pomodoro" not in before.split("## Facts")[1]  # the title is not a fact
    image = user["content"][2]["image_url"]["url"]
    assert base64.b64decode(image.split(",", 1)[1]) == png()


def test_validation_fills_wording_and_requires_coverage():
    inp = judge_input()
    report = validate(analyst_answer(layout_quality=" Good ", mobile_layout="Not Shown"), inp)
    assert report.layout_quality == "good" and report.mobile_layout == "not_shown"
    assert [r.requirement for r in report.requirements] == inp.requirements
    partial = analyst_answer(requirements=[{"id": 1, "status": "DONE"}, {"id": "r2", "status": "missing"}])
    with pytest.raises(ValueError, match="R3"):
        validate(partial, inp)
    with pytest.raises(ValidationError):
        validate(analyst_answer(requirements=[{"id": "first", "status": "done"}]), inp)
    # Without given requirements the Analyst's own list stands; missing ids follow the order.
    own = validate(analyst_answer(requirements=[{"status": "done"}, {"status": "broken"}]),
                   judge_input(requirements=None))
    assert [(r.id, r.status) for r in own.requirements] == [("R1", "done"), ("R2", "broken")]


def test_scorer_view_has_no_free_text():
    inp = judge_input()
    report = validate(analyst_answer(layout_notes="FREE-1", visual_elements=["FREE-2"], page_type="FREE-3"), inp)
    view = scorer_view(report, inp)
    assert "FREE" not in json.dumps(view) and "keyframe 2 shows" not in json.dumps(view)
    assert view["counts"]["visual_elements"] == 1 and view["ratings"]["layout_quality"] == "good"
    assert view["requirements"][0] == {"id": "R1", "status": "done", "requirement": inp.requirements[0]}
    derived = scorer_view(validate(analyst_answer(), judge_input(requirements=None)), judge_input(requirements=None))
    assert derived["requirements"][0] == {"id": "R1", "status": "done"}  # the Analyst's wording stays out

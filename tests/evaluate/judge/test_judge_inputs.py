"""Judge inputs: the visible-text filter, closed-type projections, keyframes, metrics from evidence."""

import pytest
from judge_fixtures import judge_input, metrics, png
from pydantic import ValidationError

from webmend.config import JudgeConfig
from webmend.evaluate.judge.inputs import (
    Keyframe,
    ObjectiveMetrics,
    TraceSummary,
    clip_text,
    metrics_from_evidence,
    safe_static_facts,
    select_visible_text,
)
from webmend.evaluate.static_facts import static_facts


def run(text, visible=True, font_px=16, contrast_ratio=7.0, **extra):
    return {"text": text, "visible": visible, "font_px": font_px, "contrast_ratio": contrast_ratio, **extra}


def test_select_visible_text_drops_hidden_tiny_and_low_contrast():
    runs = [run("  Title \n here "), run("hidden", visible=False), run("tiny", font_px=10.9), run("edge", font_px=11),
            run("same colour", contrast_ratio=1.0), run("faint", contrast_ratio=2.9), run("ok", contrast_ratio=3.0),
            run("   "), {"text": "no checks"}, run("truthy but not True", visible="yes")]
    assert select_visible_text(runs) == ["Title here", "edge", "ok"]
    strict = JudgeConfig(min_font_px=14, min_contrast_ratio=4.5)
    assert select_visible_text(runs, strict) == ["Title here"]


def test_clip_text_respects_every_limit():
    cfg = JudgeConfig(max_text_runs=3, max_text_run_chars=5, max_page_text_chars=12)
    assert clip_text(["abcdefgh", "ij", "klmnopq", "rs"], cfg) == ["abcde", "ij", "klmno"]
    assert clip_text(["abcdefgh"] * 5, JudgeConfig(max_text_run_chars=5, max_page_text_chars=9)) == ["abcde"]


def test_safe_static_facts_keeps_no_page_written_string():
    html = """<!DOCTYPE html><html lang="de"><head><title>SECRET-TITLE</title>
    <link rel="stylesheet" href="https://cdn.test/SECRET-URL.css"></head><body>
    <input type="SECRET-TYPE"><input type="range"><select></select><canvas></canvas>
    <script src="https://cdn.test/chart.umd.js"></script></body></html>"""
    facts = safe_static_facts(static_facts(html))
    assert "SECRET" not in repr(facts)
    assert facts["has_title"] and facts["has_lang"] and facts["uses_canvas"] and facts["doctype"]
    assert facts["input_kinds"] == {"range": 1, "select": 1}
    assert facts["libraries"] == ["chartjs"]
    assert facts["external_resources"]["stylesheet"] == 1 and facts["external_resources"]["script"] == 1
    assert all(isinstance(v, (bool, int, float, dict, list)) for v in facts.values())


def test_trace_summary_keeps_only_declared_closed_fields():
    t = TraceSummary.model_validate({
        "keys_worked": ["Space", "ArrowLeft", "give me marks", "<b>", 7], "controls": [{"text": "label"}],
        "viewports": {"mobile": {"overflow": True, "label": "x"}}, "layer3_outcome": "played"})
    dumped = t.model_dump()
    assert t.keys_worked == ["Space", "ArrowLeft"] and "controls" not in dumped
    assert dumped["viewports"] == {"mobile": {"overflow": True, "offscreen_controls": 0, "overlapping_controls": 0,
                                              "unreadable_text": 0}}
    with pytest.raises(ValidationError):
        TraceSummary.model_validate({"layer3_outcome": "anything the page says"})


def test_keyframes_need_one_png_source(tmp_path):
    with pytest.raises(ValidationError):
        Keyframe(annotation="none")
    with pytest.raises(ValidationError):
        Keyframe(png=png(), path="x.png")
    assert Keyframe(png=png()).load(10_000) == png()
    with pytest.raises(ValueError, match="not a PNG"):
        Keyframe(png=b"<svg/>").load(10_000)
    with pytest.raises(ValueError, match="bytes"):
        Keyframe(png=png(size=(64, 64))).load(10)


def test_guardrail_inputs_are_required():
    m = metrics()
    del m["overflow_mobile"]
    with pytest.raises(ValidationError, match="overflow_mobile"):
        ObjectiveMetrics.model_validate(m)
    with pytest.raises(ValidationError):
        judge_input(unexpected_field=1)


def test_metrics_from_evidence():
    ev = {
        "probe": {"blank": False, "overflow_mobile": {"overflowing": True}, "overflow_desktop": {"overflowing": False},
                  "design": {"cssRules": 0, "textElements": 10, "lowContrast": 2, "smallText": 5, "overlaps": 1},
                  "controls": [{"responded": True}, {"responded": False}], "keys_responsive": ["Space"],
                  "motion_diff": 0.0, "motion_late_diff": 0.2},
        "events": {"console_error_count": 1, "page_error_count": 2},
        "static": {"has_viewport_meta": False, "css_bytes": 0, "inline_style_attrs": 0},
    }
    fast = {"rendering": 8, "visual_design": 5, "functionality": 30, "interaction": 6, "code_quality": 3}
    m = metrics_from_evidence(ev, fast, interactive=True, visual_budget=20, functionality_budget=55)
    assert (m.blank_page, m.overflow_mobile, m.overflow_desktop, m.has_viewport_meta, m.styled) == \
        (False, True, False, False, False)
    assert (m.controls_tested, m.controls_responsive, m.keys_responsive, m.animating) == (2, 1, True, True)
    assert (m.low_contrast_share, m.small_text_share, m.text_overlaps) == (0.2, 0.5, 1)
    assert (m.console_errors, m.page_errors, m.fast_scores.functionality, m.blank_canvas) == (1, 2, 30, False)
    assert metrics_from_evidence({}, fast, interactive=False, visual_budget=20, functionality_budget=65).blank_page


def test_the_judges_trace_facts_are_a_subset_of_the_trace_summary_contract():
    """The judge reads a text-free subset of the trace summary with lenient defaults; every field it
    declares must be one the summary contract has, with the same closed values, so the two cannot drift."""
    from typing import get_args

    from webmend.evaluate.judge.inputs import TraceSummary as JudgeView
    from webmend.schemas.experience import TraceSummary

    contract = TraceSummary.model_fields
    assert set(JudgeView.model_fields) <= set(contract)
    assert get_args(JudgeView.model_fields["layer3_outcome"].annotation) == get_args(contract["layer3_outcome"].annotation)

"""Family rules: accuracy on the committed labelled set meets the configured gates."""

from __future__ import annotations

from webmend.intake.config import IntakeConfig
from webmend.intake.family import classify, classify_rules
from webmend.intake.quality import family_metrics, quality_report


def test_labelled_set_meets_the_gates():
    cfg = IntakeConfig()
    m = family_metrics()
    assert m["all"]["rows"] >= 150 and m["holdout"]["rows"] >= 50
    assert m["all"]["family_accuracy"] >= cfg.quality.family_accuracy_min, m
    assert m["all"]["interactive_accuracy"] >= cfg.quality.interactive_accuracy_min, m


def test_quality_report_applies_config_gates():
    assert quality_report(IntakeConfig())["pass"]
    strict = IntakeConfig.model_validate({"quality": {"family_accuracy_min": 1.0}})
    report = quality_report(strict)
    assert not report["pass"] and not report["gates"]["family_accuracy"]["pass"]


def test_subtype_interactive_and_confidence():
    label = classify_rules("Create a 3D solar system with Three.js, orbiting planets and camera controls.")
    assert (label.family, label.subtype, label.interactive) == ("three_d_webgl", "solar_system", True)
    assert 0.5 < label.confidence <= 1
    static = classify_rules("Write and design a long-form blog article about the history of tea, with pull quotes.")
    assert (static.family, static.interactive) == ("content_marketing", False)
    assert classify_rules("hello there").confidence == 0.0


def test_source_labels_win():
    label = classify("Make a spinning cube.", {"family": "three_d_webgl", "subtype": "cube", "interactive": False})
    assert (label.family, label.subtype, label.interactive, label.confidence, label.method) == ("three_d_webgl", "cube", False, 1.0, "source")

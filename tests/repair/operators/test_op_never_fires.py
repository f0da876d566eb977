"""No operator fires on a page without its defect: two clean pages (a canvas game, a landing
page), each evaluated once. (Each fixture module also checks that only its own operator fires.)"""

from __future__ import annotations

import pytest
from repair_op_cases import SAMPLES, firing

from webmend.repair.diagnosis import diagnose
from webmend.repair.evaluation import evaluate_html
from webmend.repair.operators import OPERATORS

CLEAN = ["game_snake", "content_saas_landing"]


@pytest.fixture(scope="module")
def clean(cfg, worker):
    out = {}
    for name in CLEAN:
        html = (SAMPLES / f"{name}.html").read_text(encoding="utf-8")
        record = evaluate_html(html, None, cfg, worker, page_id=name)
        assert record["status"] == "ok"
        out[name] = (html, diagnose(record, cfg))
    return out


@pytest.mark.parametrize("name", CLEAN)
def test_no_detector_fires_on_a_clean_page(clean, name):
    html, d = clean[name]
    assert firing(d, html) == []


def test_the_clean_pages_exercise_the_detectors(clean):
    """They are not trivially clean: each has what a detector looks at, without the defect."""
    snake_html, snake = clean["game_snake"]
    assert snake.game.detected and snake.game.keyboard_listeners == ["document"]  # keys on the page, no canvas
    assert snake.layout["desktop"]["page_height"] <= snake.layout["desktop"]["viewport_height"]  # nothing to scroll
    landing_html, landing = clean["content_saas_landing"]
    assert landing.layout["desktop"]["page_height"] > 2 * landing.layout["desktop"]["viewport_height"]
    assert not landing.layout["mobile"]["overflow"]
    assert landing_html.rstrip().endswith("</html>")


def test_operator_names_are_unique_and_the_tail_comes_first():
    names = [op.name for op in OPERATORS]
    assert len(set(names)) == len(names) and names[0] == "close_document_tail"
    assert names[1:5] == ["add_charset", "add_viewport_meta", "add_lang", "add_title"]

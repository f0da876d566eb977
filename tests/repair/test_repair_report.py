"""report.html and the markdown digest of a repair run, from hand-written repairs.jsonl records."""

from __future__ import annotations

import json
import re
import shutil
import struct
import zlib
from pathlib import Path

from webmend.repair.report import render_html, report_markdown, write_report
from webmend.schemas.repair import RepairRecord

HOSTILE = "<script>alert(1)</script>"
HOSTILE_REASON = "rejected: <img src=x onerror=alert(2)> | broke it"


def png(rgb: tuple[int, int, int], w: int = 2, h: int = 2) -> bytes:
    """A valid solid-colour PNG."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def diagnosis(pid: str, total: float | None, state: str | None, dims: dict | None = None) -> dict:
    """A D(h) shaped like /tmp/rp/out's t1 record, trimmed to what the schema requires."""
    dims = dims or {"rendering": 10.0, "visual_design": 9.9, "functionality": 0.0, "interaction": 9.0,
                    "code_quality": 2.0}
    layout = {"offscreen_controls": [], "overflow": False, "overflowing_elements": [], "overlapping_controls": 0,
              "unreadable_text": False}
    return {
        "id": pid, "status": "ok", "total": total, "state": state, "dimensions": dims,
        "shortfall": {k: 0.5 for k in dims}, "limiting_dimension": "functionality",
        "failed_tests": [{"id": "tc1", "name": "click counts", "weight": 1.0, "failed_step": 1,
                          "failed_action": "assert_text", "error": "mismatch"}],
        "passing_tests": [], "rendered": True, "console_errors": [], "page_errors": [],
        "layout": {v: {**layout, "width": w, "scroll_width": w} for v, w in
                   (("desktop", 1280), ("tablet", 768), ("mobile", 375))},
        "controls": {"total": 1, "tested": 1, "responsive": 1, "dead": []},
        "game": {"detected": False, "outcome": "not_run", "start_action": None, "loop_stalled": False,
                 "canvas_blank": False, "start_overlay": False, "no_state_change": False, "keys_worked": [],
                 "keyboard_listeners": []},
        "blocked_requests": [], "cdn_misses": [], "static": {"doctype": False, "title": None},
        "requirements": [], "flags": [], "history": [],
    }


def attempt(rnd: int, cand: int, before: float, after: float, accepted: bool, **kw) -> dict:
    a = {"round": rnd, "candidate": cand, "strategy": "operator", "mode": "operator",
         "name": "add_charset+add_title", "rule": "operators: add_charset, add_title", "page_hash": f"h{rnd}{cand}",
         "accepted": accepted, "reason": f"accepted (+{after - before:.2f})" if accepted else "rejected: no gain",
         "early_rejected": False, "score_before": before, "score_after": after,
         "dimensions": {"code_quality": {"before": 2.0, "after": 4.0}}, "tests_fixed": [], "tests_broken": [],
         "eval_s": 1.5}
    a.update(kw)
    return a


def record(index: int, pid: str, path: list, states: tuple, attempts: list | None = None, best: int | None = None,
           frames: tuple[list, list] = ([], []), stop: str = "patience", **kw) -> dict:
    best = len(path) - 1 if best is None else best
    before, after = path[0], path[best]
    r = {
        "index": index, "id": pid, "config_hash": "74e0c87757c51e6d", "original_hash": f"o{index}",
        "final_hash": f"f{index}", "original_score": before, "final_score": after, "original_state": states[0],
        "final_state": states[1], "best_round": best, "rounds": len(path) - 1, "stop_reason": stop,
        "attempts": attempts or [],
        "routes": [{"round": n, "state": states[0], "strategies": ["operator", "holistic_rewrite"],
                    "game_layer": None, "rule": "low: no stable local target, replace"} for n in range(1, len(path))],
        "score_path": path, "diagnosis": diagnosis(pid, before, states[0]),
        "checkpoints": [{"round": 0, "page_hash": f"o{index}", "parent_hash": None, "score": before,
                         "state": states[0]}]
        + ([{"round": best, "page_hash": f"f{index}", "parent_hash": f"o{index}", "score": after,
             "state": states[1]}] if best else []),
        "final_diagnosis": diagnosis(pid, after, states[1], {"rendering": 10.0, "visual_design": 12.8,
                                                             "functionality": 20.0, "interaction": 9.0,
                                                             "code_quality": 4.0}) if best else None,
        "llm_calls": 0, "cost_usd": None, "page": f"pages/{index}.html",
        "keyframes_before": frames[0], "keyframes_after": frames[1], "elapsed_s": 3.0,
    }
    r.update(kw)
    return RepairRecord.model_validate(r).model_dump(mode="json")


def build_run(out: Path, size: tuple[int, int] = (2, 2)) -> list[dict]:
    """Five pages: Low->Mid over two rounds, a hostile Mid page, High untouched, Low a little up, unscored."""
    (out / "keyframes").mkdir(parents=True)
    (out / "pages").mkdir()
    colours = {"a": (200, 60, 60), "b": (60, 160, 90), "c": (60, 90, 200), "d": (220, 180, 40), "e": (120, 120, 120)}
    for name, rgb in colours.items():
        (out / "keyframes" / f"{name}.png").write_bytes(png(rgb, *size))
    kf = lambda *names: [f"keyframes/{n}.png" for n in names]  # noqa: E731
    records = [
        record(0, "counter", [30.0, 36.0, 52.0], ("Low", "Mid"), frames=(kf("a", "b", "c", "d", "e"), kf("c", "d")),
               stop="target_reached", attempts=[
                   attempt(1, 1, 30.0, 36.0, True),
                   attempt(1, 2, 30.0, 28.0, False, strategy="holistic_rewrite", mode="rewrite", name="gpt-x",
                           tests_broken=["tc2"], cost_usd=0.0012),
                   attempt(2, 1, 36.0, 20.0, False, strategy="feature_completion", mode="patch", name="gpt-x",
                           early_rejected=True, reason="early reject: tc1 failed again"),
                   attempt(2, 2, 36.0, 52.0, True, strategy="feature_completion", mode="patch", name="gpt-x",
                           tests_fixed=["tc1"], cost_usd=0.002)],
               llm_calls=3, cost_usd=0.0032),
        record(1, HOSTILE, [55.0, 55.0], ("Mid", "Mid"), best=0, frames=(kf("b") + ["keyframes/gone.png"], []),
               attempts=[attempt(1, 1, 55.0, 50.0, False, reason=HOSTILE_REASON, name="<b>op</b>")]),
        record(2, "snake", [88.0], ("High", "High"), frames=(kf("e"), kf("e")), stop="no_candidates"),
        record(3, "notes", [20.0, 22.5], ("Low", "Low"), frames=(kf("a"), kf("b")),
               attempts=[attempt(1, 1, 20.0, 22.5, True)], stop="max_rounds"),
        record(4, "broken", [None], (None, None), stop="unscored", original_score=None, final_score=None, page=None),
    ]
    for r in records:
        if r["page"]:
            (out / r["page"]).write_text("<!DOCTYPE html><title>x</title>", encoding="utf-8")
    (out / "repairs.jsonl").write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records),
                                       encoding="utf-8")
    return records


def _cells(html: str) -> dict[tuple[str, str], int]:
    return {(r, c): int(n) for r, c, n in re.findall(r'data-row="([^"]+)" data-col="([^"]+)">(\d+) ', html)}


def test_report_funnel_counts_and_tables(tmp_path):
    build_run(tmp_path)
    path = write_report(tmp_path)
    assert path == tmp_path / "report.html"
    html = path.read_text(encoding="utf-8")
    assert _cells(html) == {("Low", "Mid"): 1, ("Low", "Low"): 1, ("Mid", "Mid"): 1, ("High", "High"): 1,
                            ("unscored", "unscored"): 1}
    assert 'data-row="Low" data-col="Mid">1 <span class="pct">(50%)</span>' in html
    assert "<code>add_charset</code></td><td>2</td><td>2</td><td>100%</td>" in html
    assert "early-rejected" in html and "gpt-x" in html and "+tc1" in html and "−tc2" in html


def test_hostile_strings_are_escaped_and_there_is_no_script(tmp_path):
    build_run(tmp_path)
    html = write_report(tmp_path).read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.lower() and "<img src=x" not in html and "<b>op" not in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html and "&lt;b&gt;op&lt;/b&gt;" in html
    assert not re.search(r"""(?:src|href)=["']?(?:https?:)?//""", html)  # nothing external


def test_cards_are_sorted_and_thumbnails_point_at_existing_files(tmp_path):
    build_run(tmp_path)
    html = write_report(tmp_path).read_text(encoding="utf-8")
    order = re.findall(r'<section class="card [a-z]+" id="case-([^"]+)"', html)
    assert order == ["counter", "notes", "%3Cscript%3Ealert%281%29%3C%2Fscript%3E", "snake", "broken"]
    srcs = re.findall(r'<img src="([^"]+)"', html)
    assert srcs and all((tmp_path / s).is_file() for s in srcs)
    assert srcs[:6] == ["keyframes/a.png", "keyframes/b.png", "keyframes/c.png", "keyframes/d.png",
                        "keyframes/c.png", "keyframes/d.png"]  # first four before, then the retained ones
    assert "keyframes/gone.png" not in srcs and "missing" in html  # a missing frame is a placeholder
    assert '<a href="pages/0.html">' in html and "not exported" in html
    assert html.count('<circle class="best"') == 4  # the retained round marked; the unscored page has no path


def test_report_is_deterministic_and_location_free(tmp_path):
    build_run(tmp_path / "a")
    first = write_report(tmp_path / "a").read_bytes()
    assert write_report(tmp_path / "a").read_bytes() == first
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    assert write_report(tmp_path / "b").read_bytes() == first


def test_empty_run_still_renders(tmp_path):
    assert "No pages." in write_report(tmp_path).read_text(encoding="utf-8")
    assert "0 pages" in report_markdown([])


def test_markdown_digest(tmp_path):
    records = build_run(tmp_path)
    md = report_markdown(tmp_path)
    assert md == report_markdown(records)
    assert "| Low | 1 (50%) | 1 (50%) | · | · |" in md
    assert "| unscored | · | · | · | 1 (100%) |" in md
    top = md.split("## Top cases")[1]
    assert top.index("counter") < top.index("notes") and "snake" not in top and "| +22.0 |" in top
    assert "<script>" not in md and "&lt;script&gt;" not in top  # the unchanged hostile page is not a top case
    assert render_html(tmp_path, records) == write_report(tmp_path).read_text(encoding="utf-8")

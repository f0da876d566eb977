"""The closed lists every stage shares, defined once: import them, never spell them out again.

Tables (tables.py), result records (results.py), scoring, summaries and the judge all read these;
docs/output-contract.md and docs/data-root.md describe what each value means.
"""

from __future__ import annotations

# The five scored dimensions, in the order records, tables and reports list them.
DIMENSIONS = ("rendering", "visual_design", "functionality", "interaction", "code_quality")
SCORE_FIELDS = ("total", *DIMENSIONS)

# State bands (Low < 40 <= Mid < 80 <= High; the thresholds are config: ScoringBands).
STATES = ("Low", "Mid", "High")

FAMILIES = (
    "apps_tools", "content_marketing", "data_visualization",
    "games_simulations", "three_d_webgl", "visual_art_animation",
)
PROMPT_KINDS = ("prompt", "benchmark_item", "forum_post", "library_example", "crawled_page")

# Evaluation statuses. A reject never reached a browser (the input was unusable); a page fault is
# what the page did to its browser (it hung, crashed it, or exhausted a limit); an evaluator failure
# is webmend's own (a wall-clock timeout or an internal error): worth a rerun, not a verdict.
REJECT_STATUSES = ("empty", "binary", "no_html", "trivial", "too_large", "unreadable", "malformed_input")
PAGE_FAULT_STATUSES = ("hang", "crashed", "resource_limit")
EVALUATOR_FAILURE_STATUSES = ("timeout", "error")
EVALUATION_STATUSES = ("ok", *PAGE_FAULT_STATUSES, *REJECT_STATUSES, *EVALUATOR_FAILURE_STATUSES)

# The experience protocol's viewports (sizes are config) and layer 3's outcomes (docs/experience.md).
VIEWPORTS = ("desktop", "tablet", "mobile")
LAYER3_OUTCOMES = ("not_run", "played", "did_not_start", "stalled", "error")

# Why a test case's failure is no defect of the page (webmend/evaluate/unpassable.py,
# docs/repair.md): repair leaves such checks out of its targets; the verdict is unchanged.
UNPASSABLE_RULES = ("change_without_action", "no_reference_capture", "unknown_action", "invalid_selector",
                    "invalid_pattern")

"""The evaluator: one page in, its experience trace, test-case verdicts, scores and record out.

Pure library, no Prefect (repair and training call `page.evaluate_page` directly). Modules: page
(evaluate_page: one page on a warm browser), experience/ (the four-layer protocol), testcases (the
executable test-case runner), static_facts, scoring, judging + judge/ (full mode's visual judge),
records (a whole result record for one input), inputs (pages, answer JSONL, test items), run
(`webmend evaluate`: results.jsonl + summary.json), summary, rescore, traces (records -> trace
table rows), replay_check, similarity, keys.
"""

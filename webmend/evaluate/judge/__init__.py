"""The bounded visual judge for full-mode evaluation (issue 3 §4), a pure library; docs/judge.md.

Settings: JudgeConfig in webmend/config.py (limits, decoding, guardrail thresholds). Modules: inputs (JudgeInput and its
dict shapes, select_visible_text, safe_static_facts, metrics_from_evidence), jsonparse
(extract_json), ask (cached call, schema check, one re-ask), analyst (vision prompt, scorer_view),
scorer (text prompt), guardrails (caps and bands), judge (VisualJudge.judge -> JudgeResult; never
raises). Contracts: webmend/schemas/judge.py. Nothing is imported here: importing litellm takes seconds.
"""

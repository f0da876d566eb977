"""Page generation through litellm (issue 5 §3): `webmend generate`, see docs/generation.md.

Modules: client (LLMClient.complete: retries, limits, spend cap, refusals), limits, retry, redact,
cache (ResponseCache, cache_key), prompts (system prompt, safe-demo suffix, prompt files), samples
(GenerationConfig, sample ids P / P#k), core (one sample and its table rows), run (a whole run's
outputs), command (CLI wiring). Nothing is imported here: importing litellm takes seconds.
"""

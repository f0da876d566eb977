"""Page generation through litellm (issue 5 §3): `webmend generate`, see docs/generation.md.

Modules: prompts (system prompt, safe-demo suffix, prompt files), samples (GenerationConfig, sample
ids P / P#k), core (one sample and its table rows), run (a whole run's outputs), command (CLI
wiring). The client stack (client, limits, retries, cache, redaction) is webmend/llm/. Nothing is
imported here: importing litellm takes seconds.
"""

"""The LLM client stack every stage shares (intake, generation, the visual judge, repair).

Modules: client (LLMClient.complete: retries, limits, spend cap, refusals), limits (per-provider
rate limits), retry (backoff; transient failures only), cache (ResponseCache, cache_key), redact
(secrets never reach logs or tables), settings (GenerationSettings: the knobs a flow passes),
complete (plain `complete(messages) -> str` callables on top of the client). Nothing is imported
here: importing litellm takes seconds.
"""

"""build-refined-pool without Prefect: the pool's inputs (prompts -> intake -> generation or ready
answers), its batches (cut, evaluate on a warm browser, write traces, resubmit on infrastructure
failures) and its summary. webmend/flows/ wraps these functions in Prefect tasks and flows.

Modules: inputs (what a pool run starts from), batches (plan, evaluate, write, drive), summary.
"""

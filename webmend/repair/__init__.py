"""State-aware repair: diagnosis, routing, candidates, regression-checked checkpoints (issue 12). Not built yet."""

"""Code that runs inside the training environment (`.venv-train`: torch, transformers, LlamaFactory).

Nothing here imports the pipeline's packages beyond stdlib-only modules (`webmend.training.role_rewards`),
and nothing in the pipeline imports this package: the pipeline starts these modules as child
processes with the training environment's interpreter (`webmend.training.env`), because the two
environments' pins cannot share one interpreter (docs/training.md)."""

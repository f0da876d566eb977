"""Interaction contracts (docs/icg-format.md): the format lives in webmend/schemas/contract.py; here
validation, scores and construction with a model. The browser executor comes next (issue 15)."""

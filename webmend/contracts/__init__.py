"""Interaction contracts (docs/icg-format.md): validation, construction with a model, the
executability filter and conversion to and from test cases. The format lives in
webmend/schemas/contract.py; executing and scoring a contract is evaluation's job
(webmend/evaluate/contract_run.py), re-exported here as the call the RL stage uses."""

from webmend.evaluate.contract_run import ContractRun, execute_contract

__all__ = ["ContractRun", "execute_contract"]

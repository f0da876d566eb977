"""The pipeline's stages in order, and the chain a build-refined-pool run is built from.

Each stage's declaration lives beside the code that writes its tables (`SPEC` in its package);
this module only orders them. `pool_stages` is what the flow runs, checked before any work.
"""

from __future__ import annotations

import logging

from webmend.contracts.building import SPEC as CONTRACTS
from webmend.evaluate.traces import SPEC as EVALUATE
from webmend.export.select import SPEC as EXPORT
from webmend.generate.run import SPEC as GENERATE
from webmend.intake.output import SPEC as INTAKE
from webmend.repair.traces import SPEC as REPAIR
from webmend.stage.spec import StageSpec, check_chain

log = logging.getLogger(__name__)

PIPELINE: tuple[StageSpec, ...] = (INTAKE, GENERATE, CONTRACTS, EVALUATE, REPAIR, EXPORT)


def pool_stages(*, prompts: bool = False, contract_model: bool = False, repair: bool = False,
                export: bool = False) -> list[StageSpec]:
    """The stages a build-refined-pool run with these switches runs, in order; FlowBuildError when
    a stage reads what no stage before it writes."""
    wanted = {INTAKE: prompts, GENERATE: prompts, CONTRACTS: prompts and contract_model, EVALUATE: True,
              REPAIR: repair, EXPORT: export}
    stages = [s for s in PIPELINE if wanted[s]]
    check_chain(stages)
    log.info("stages: %s", " -> ".join(s.name for s in stages))
    return stages

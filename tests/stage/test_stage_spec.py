from pathlib import Path

import pytest

from webmend.cli import main
from webmend.pool.stages import PIPELINE, pool_stages
from webmend.stage.spec import FlowBuildError, Read, StageSpec, check_chain, render_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_a_chain_whose_reads_are_written_before_passes():
    assert [s.name for s in pool_stages(prompts=True, contract_model=True, repair=True, export=True)] == \
        ["intake", "generate", "contracts", "evaluate", "repair", "export"]
    assert [s.name for s in pool_stages()] == ["evaluate"]


def test_a_stage_reading_what_no_earlier_stage_writes_fails_with_table_and_column():
    repair = next(s for s in PIPELINE if s.name == "repair")
    intake = next(s for s in PIPELINE if s.name == "intake")
    with pytest.raises(FlowBuildError) as err:
        check_chain([intake, repair])
    message = str(err.value)
    assert "stage 'repair' reads evaluations.id" in message
    assert "no earlier stage writes table 'evaluations'" in message and "stages before it: intake" in message


def test_the_order_matters_and_optional_reads_need_no_writer():
    evaluate, repair, export = (next(s for s in PIPELINE if s.name == n) for n in ("evaluate", "repair", "export"))
    with pytest.raises(FlowBuildError, match="stage 'repair' reads evaluations"):
        check_chain([repair, evaluate])
    check_chain([evaluate, export])  # checkpoints, repair_attempts and prompts are read when present


def test_a_declaration_naming_an_unknown_table_or_column_fails_when_made():
    with pytest.raises(ValueError, match="unknown table 'evaluation'"):
        Read("evaluation", ("id",))
    with pytest.raises(ValueError, match="no column"):
        Read("evaluations", ("id", "scor_total"))
    with pytest.raises(ValueError, match="unknown table"):
        StageSpec("x", "y", writes=("checkpoint",))


def test_a_stage_names_the_columns_it_reads_and_its_marker():
    repair = next(s for s in PIPELINE if s.name == "repair")
    assert repair.marker == "checkpoints"
    assert "evidence" in repair.columns("evaluations")
    with pytest.raises(KeyError, match="declares no read of table 'prompts'"):
        repair.columns("prompts")


def test_webmend_stages_prints_the_table_the_architecture_doc_shows(capsys):
    assert main(["stages"]) == 0
    printed = capsys.readouterr().out
    assert printed == render_markdown(list(PIPELINE))
    doc = DOC.read_text(encoding="utf-8")
    shown = doc.split("<!-- webmend stages: begin -->\n")[1].split("<!-- webmend stages: end -->")[0]
    assert shown == printed, "docs/architecture.md: paste the output of `webmend stages`"

"""Export of a data root written by real evaluator and repair runs: each route's rows, the rejects
with their reasons, preference pairs, the manifest, determinism and reruns."""

from __future__ import annotations

import json

import jsonschema
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import sigkill_when
from export_fixtures import copy_root, traced_root

from webmend.export.config import DEFAULT_SYSTEM, ExportConfig
from webmend.export.manifest import manifest_schema, verify_manifest
from webmend.export.run import STAGING_PREFIX, export_corpus
from webmend.store import DataRoot


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    root, bench = traced_root(tmp_path_factory)
    out = tmp_path_factory.mktemp("corpus")
    outcome = export_corpus(str(root), str(out), ExportConfig(), [str(bench)])
    folder = out / outcome.version
    return root, bench, out, outcome, folder, json.loads((folder / "manifest.json").read_text())


def rows(folder, dataset_dir: str) -> list[dict]:
    return [r for part in sorted((folder / dataset_dir).glob("part-*.parquet")) for r in pq.read_table(part).to_pylist()]


def test_each_route_holds_the_pages_it_should(exported):
    *_, outcome, folder, _ = exported
    raw = {r["id"] for r in rows(folder, "raw/sharegpt")}
    # truncated_tail is unfinished before repair; wide_media asks the benchmark's prompt.
    assert raw == {"bare_document", "bare_document#1", "start_overlay"}
    assert {r["id"] for r in rows(folder, "filtered/sharegpt")} == {"bare_document", "bare_document#1"}
    refined = rows(folder, "refined/sharegpt")
    # One row per prompt: bare_document#1 ties bare_document and loses on the id.
    assert {r["id"] for r in refined} == {"bare_document", "start_overlay", "truncated_tail"}
    assert all(r["score"] >= 80 and r["route"] == "refined" for r in refined)
    assert {r["id"]: r["original_score"] < r["score"] for r in refined} == dict.fromkeys(
        ["bare_document", "start_overlay", "truncated_tail"], True)
    assert outcome.rows["webmend_refined_alpaca"] == 3 and outcome.rows["webmend_raw_alpaca"] == 3


def test_rows_are_whole_conversations_with_the_system_turn(exported):
    *_, folder, _ = exported
    for r in rows(folder, "refined/sharegpt"):
        assert [m["role"] for m in r["messages"]] == ["system", "user", "assistant"]
        assert r["messages"][0]["content"] == DEFAULT_SYSTEM
        html = r["messages"][2]["content"]
        assert html.lstrip().lower().startswith("<!doctype html") and html.rstrip().lower().endswith("</html>")
    alpaca = {r["id"]: r for r in rows(folder, "refined/alpaca")}
    share = {r["id"]: r for r in rows(folder, "refined/sharegpt")}
    for rid, a in alpaca.items():
        assert (a["system"], a["instruction"], a["input"], a["output"]) == (
            DEFAULT_SYSTEM, share[rid]["messages"][1]["content"], "", share[rid]["messages"][2]["content"])


def test_preference_pairs_put_the_verified_checkpoint_over_the_original(exported):
    *_, folder, _ = exported
    pairs = rows(folder, "refined/preference")
    assert {p["id"] for p in pairs} == {"bare_document", "start_overlay", "truncated_tail"}
    for p in pairs:
        assert [m["role"] for m in p["messages"]] == ["system", "user"]
        assert p["chosen"]["role"] == p["rejected"]["role"] == "assistant"
        assert p["chosen_score"] > p["rejected_score"] and p["rejected_kind"] == "original"
        assert p["chosen"]["content"] != p["rejected"]["content"]


def test_every_page_left_out_has_a_recorded_reason(exported):
    *_, folder, manifest = exported
    rejects = {(r["route"], r["id"]): (r["reason"], r["detail"]) for r in pq.read_table(folder / "rejects.parquet").to_pylist()}
    assert rejects[("raw", "truncated_tail")][0] == "incomplete_document"
    assert rejects[("raw", "wide_media")][0] == "contaminated" and "bench_lodge" in rejects[("raw", "wide_media")][1]
    assert rejects[("refined", "wide_media")][0] == "contaminated"
    assert rejects[("refined", "bare_document#1")][0] == "not_best_for_prompt"
    assert rejects[("filtered", "start_overlay")] == ("not_high", "Mid")
    assert manifest["rejects"]["counts"] == {"filtered": {"not_high": 1},
                                             "raw": {"contaminated": 1, "incomplete_document": 1},
                                             "refined": {"contaminated": 1, "not_best_for_prompt": 1}}


def test_the_manifest_validates_and_carries_the_funnel(exported):
    *_, folder, manifest = exported
    jsonschema.validate(manifest, manifest_schema())
    assert verify_manifest(str(folder / "manifest.json")) == []
    everything = manifest["funnel"]["all"]
    # Every page was evaluated with a score and repaired; two originals are High (bare_document x2).
    assert everything["prompts"] == 4 and everything["valid_raw"] == 5 and everything["traced"] == 5
    assert everything["original_band"] == {"Low": 0, "Mid": 3, "High": 2} and everything["repaired"] == 5
    assert everything["passed_gate"] == 4
    assert everything["exported"] == {"raw": 3, "filtered": 2, "refined": 3}
    assert manifest["funnel"]["apps_tools"]["exported"]["refined"] == 1  # truncated_tail, repaired
    assert manifest["scores"]["refined"]["after"]["quantiles"]["q0"] >= 80
    assert sum(manifest["scores"]["refined"]["before"]["histogram"]) == 3
    assert manifest["gate"]["success"] and (folder / "gate" / "index.html").is_file()
    assert {f["path"] for f in manifest["files"]} >= {"rejects.parquet", "refined/sharegpt/part-00000.parquet",
                                                      "dataset_info.json", "gate.json"}
    assert [b["path"] for b in manifest["benchmarks"]] == [str(exported[1])]
    assert manifest["config_hashes"]["export"] == [ExportConfig().config_hash()]
    assert manifest["lineage"] == {"previous": None, "added": 8, "removed": 0}


def test_a_corrupted_file_fails_verification(exported, tmp_path):
    import shutil

    *_, folder, _ = exported
    copy = tmp_path / "copy"
    shutil.copytree(folder, copy)
    part = copy / "raw" / "sharegpt" / "part-00000.parquet"
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    (copy / "refined" / "alpaca" / "part-00000.parquet").unlink()
    (copy / "dataset_info.json").write_text((copy / "dataset_info.json").read_text().replace("sharegpt", "openai", 1))
    problems = verify_manifest(str(copy))
    assert any("raw/sharegpt/part-00000.parquet: sha256" in p for p in problems)
    assert any("refined/alpaca/part-00000.parquet: missing" in p for p in problems)
    assert any(p.startswith("dataset_info.json:") for p in problems)
    broken = json.loads((copy / "manifest.json").read_text())
    del broken["funnel"]
    (copy / "manifest.json").write_text(json.dumps(broken))
    assert any(p.startswith("schema:") and "funnel" in p for p in verify_manifest(str(copy)))


def test_same_inputs_make_the_same_export_and_a_rerun_writes_nothing(exported, tmp_path):
    root, bench, out, outcome, folder, _ = exported
    again = export_corpus(str(root), str(tmp_path), ExportConfig(), [str(bench)])
    assert again.version == outcome.version and again.status == "exported"
    for f in json.loads((folder / "manifest.json").read_text())["files"]:
        assert (tmp_path / again.version / f["path"]).read_bytes() == (folder / f["path"]).read_bytes(), f["path"]
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    assert export_corpus(str(root), str(out), ExportConfig(), [str(bench)]).status == "unchanged"
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before


def test_equal_size_sampling_is_stratified_and_seeded(exported, tmp_path):
    root, bench, *_ = exported
    cfg = ExportConfig(equal_size=2, formats=("sharegpt",))
    a = export_corpus(str(root), str(tmp_path / "a"), cfg, [str(bench)])
    b = export_corpus(str(root), str(tmp_path / "b"), cfg, [str(bench)])
    assert a.version == b.version and set(a.rows.values()) == {2}
    folder = tmp_path / "a" / a.version
    refined = rows(folder, "refined/sharegpt")
    assert len({r["family"] for r in refined}) == 2  # three families, two rows: no family twice
    with pytest.raises(ValueError, match="fewer than equal_size 3"):
        export_corpus(str(root), str(tmp_path / "c"), ExportConfig(equal_size=3), [str(bench)])


def test_the_exports_table_names_every_exported_row(exported):
    from webmend.store.duckdb_views import run_query

    root, *_, outcome, _, manifest = exported
    _, found = run_query(str(root), "SELECT dataset, count(*), min(state), bool_and(response IS NULL) FROM exports "
                                    f"WHERE run_id = '{outcome.version}' GROUP BY dataset ORDER BY dataset")
    assert {d: n for d, n, *_ in found} == {name: d["rows"] for name, d in manifest["datasets"].items()}
    assert all(state in ("Mid", "High") and no_html for _, _, state, no_html in found)


def test_an_empty_route_is_still_a_dataset(exported, tmp_path):
    root, bench, *_ = exported
    outcome = export_corpus(str(root), str(tmp_path), ExportConfig(formats=("sharegpt",)).model_copy(
        update={"gate": ExportConfig().gate.model_copy(update={"min_score": 99.0})}), [str(bench)])
    folder = tmp_path / outcome.version
    assert outcome.rows["webmend_refined_sharegpt"] == 0 and rows(folder, "refined/sharegpt") == []
    assert "webmend_refined_sharegpt" in json.loads((folder / "dataset_info.json").read_text())
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["gate"]["success"] and "webmend_refined_sharegpt" in manifest["gate"]["datasets"]


def test_a_second_page_under_a_taken_id_is_superseded(exported, tmp_path):
    from export_fixtures import copy_root

    from webmend.schemas.hashing import sha256_hex
    from webmend.store import DataRoot

    root, bench, *_ = exported
    data = DataRoot(copy_root(root, tmp_path / "root"))
    row = next(r for r in data.read("evaluations").to_pylist() if r["id"] == "start_overlay")
    older = row["page"].replace("<body", "<!-- an older version --><body", 1)
    data.write("evaluations", [{**row, "page": older, "page_hash": sha256_hex(older), "input_hash": sha256_hex(older),
                                "score_total": row["score_total"] - 5, "run_id": "older-run"}], key="older")
    outcome = export_corpus(str(data.path), str(tmp_path / "out"), ExportConfig(formats=("sharegpt",)), [str(bench)])
    rejects = pq.read_table(tmp_path / "out" / outcome.version / "rejects.parquet").to_pylist()
    (found,) = [r for r in rejects if r["reason"] == "superseded"]
    assert (found["route"], found["id"], found["page_hash"]) == ("raw", "start_overlay", sha256_hex(older))


def test_a_rerun_completes_what_a_crash_after_the_manifest_left_out(exported, tmp_path):
    from export_fixtures import copy_root

    from webmend.store import DataRoot

    root, bench, *_ = exported
    data = copy_root(root, tmp_path / "root")
    out = tmp_path / "out"
    first = export_corpus(str(data), str(out), ExportConfig(), [str(bench)])
    (data / "exports" / f"{first.version}.parquet").unlink()  # as if killed after publishing the manifest
    (out / "LATEST.json").unlink()
    again = export_corpus(str(data), str(out), ExportConfig(), [str(bench)])
    assert again.status == "unchanged" and again.version == first.version
    assert json.loads((out / "LATEST.json").read_text())["version"] == first.version
    assert DataRoot(data).exists("exports", first.version)


def test_the_flow_artifact_says_what_was_published_or_that_nothing_was_new(exported):
    from webmend.export.run import ExportOutcome, export_markdown

    *_, outcome, _, _ = exported
    assert "webmend_refined_sharegpt | 3" in export_markdown(outcome) and outcome.version in export_markdown(outcome)
    same = ExportOutcome("unchanged", outcome.version, outcome.manifest, outcome.rows)
    assert export_markdown(same).startswith("# Export: nothing new") and "nothing was written" in export_markdown(same)


def test_an_export_killed_while_staging_publishes_the_same_version_when_run_again(exported, tmp_path):
    root, bench, _, outcome, folder, _ = exported
    out = tmp_path / "corpus"
    sigkill_when(["-m", "webmend.cli", "export", "--data-root", str(root), "--out", str(out), "--benchmark", str(bench)],
                 lambda: any(out.glob(f"{STAGING_PREFIX}*/*")))
    assert not (out / outcome.version).exists()  # nothing published half-way
    again = export_corpus(str(root), str(out), ExportConfig(), [str(bench)])
    assert again.version == outcome.version and again.rows == outcome.rows
    assert rows(out / again.version, "refined/sharegpt") == rows(folder, "refined/sharegpt")
    assert sorted(p.name for p in out.iterdir()) == ["LATEST.json", again.version]  # the killed run's staging is gone


def _as_schema_version_1(root) -> None:
    """Rewrite every other file of every table as schema version 1 wrote it (its column names, no
    columns it did not have), so the root holds files of both versions side by side."""
    from webmend.schemas.tables import TABLES, V1_COLUMNS

    for table in TABLES:
        old_names = V1_COLUMNS.get(table, {})
        for path in sorted((root / table).glob("*.parquet"))[::2]:
            data = pq.read_table(path)
            new_only = {"page_hash", "input_hash"} - set(old_names) - ({"page_hash"} if table == "evaluations" else set())
            keep = [c for c in data.column_names if c not in new_only]
            data = data.select(keep).rename_columns([old_names.get(c, c) for c in keep])
            pq.write_table(data.set_column(data.column_names.index("schema_version"), "schema_version",
                                           pa.array(["1"] * len(data))), path)


def test_a_root_written_under_schema_version_1_exports_the_same_version(exported, tmp_path):
    root, bench, _, outcome, folder, _ = exported
    old = copy_root(root, tmp_path / "old")
    _as_schema_version_1(old)
    assert "content_hash" in pq.read_table(sorted((old / "checkpoints").glob("*.parquet"))[0]).column_names
    again = export_corpus(str(old), str(tmp_path / "out"), ExportConfig(), [str(bench)])
    assert again.version == outcome.version
    for part in sorted(folder.rglob("*.parquet")):
        assert pq.read_table(part).equals(pq.read_table(tmp_path / "out" / again.version / part.relative_to(folder)))
    for table in ("checkpoints", "repair_attempts", "evaluations"):
        new, mixed = DataRoot(str(root)).read(table), DataRoot(str(old)).read(table)
        assert mixed.drop(["schema_version"]).equals(new.drop(["schema_version"])), table

import pytest

from webmend.store import DataRoot, layout


def test_answer_caches_are_by_stage_under_one_folder():
    assert [layout.cache_path(s) for s in layout.CACHE_STAGES] == [
        "cache/generate", "cache/intake", "cache/contracts", "cache/repair"]
    with pytest.raises(ValueError, match="no answer cache for stage 'export'"):
        layout.cache_path("export")


def test_folders_read_by_path_need_a_local_root(tmp_path):
    assert layout.local_dir(str(tmp_path), layout.RESPONSES) == tmp_path.resolve() / "responses"
    with pytest.raises(ValueError, match="needs a local data root"):
        layout.local_dir(DataRoot("memory://bucket/root"), layout.cache_path("generate"))
    assert layout.url_under("s3://bucket/root/", layout.CORPUS) == "s3://bucket/root/corpus"

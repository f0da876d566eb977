import pytest

from webmend.cdn.semver import pick, satisfies

THREE = ["0.128.0", "0.134.0", "0.147.0", "0.152.2", "0.160.0", "0.170.0", "0.187.0"]
CHART = ["2.9.4", "3.9.1", "4.4.7"]


@pytest.mark.parametrize("spec,expected", [
    ("0.160.0", "0.160.0"), ("r128", "0.128.0"), ("^0.160.0", "0.160.0"), ("0.160", "0.160.0"),
    ("latest", "0.187.0"), ("", "0.187.0"), ("~0.152.0", "0.152.2"), (">=0.150", "0.187.0"), ("0.x", "0.187.0"),
])
def test_satisfied_specs_have_no_note(spec, expected):
    assert pick(spec, THREE) == (expected, None)


@pytest.mark.parametrize("spec,expected", [
    ("0.160.1", "0.160.0"), ("0.155.0", "0.152.2"), ("r150", "0.152.2"), ("r90", "0.128.0"), ("0.163.0", "0.160.0"), ("0.165.0", "0.170.0"),
])
def test_missing_three_version_gets_nearest_r_number(spec, expected):
    version, note = pick(spec, THREE)
    assert version == expected
    assert note and "nearest" in note


def test_major_ranges():
    assert pick("3", CHART) == ("3.9.1", None)
    assert pick("^3.2", CHART) == ("3.9.1", None)
    assert pick("3.x", CHART) == ("3.9.1", None)
    assert pick("4.4.0", CHART)[0] == "4.4.7"
    assert pick("4.4.0", CHART)[1]


def test_other_major_only_as_last_resort():
    version, note = pick("5.0.0", CHART)
    assert version == "4.4.7" and "major" in note
    assert pick("1.0", CHART)[0] == "2.9.4"


def test_unknown_tag_serves_newest_with_note():
    version, note = pick("next", CHART)
    assert version == "4.4.7" and note


def test_satisfies():
    assert satisfies("^0.160.0", "0.160.0")
    assert not satisfies("^0.160.0", "0.161.0")
    assert satisfies("r128", "0.128.0")
    assert satisfies("", "1.2.3")

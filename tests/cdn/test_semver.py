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


# npm ranges the old hand-written matcher did not understand (it served the newest version).
RANGES = ["1.0.0", "1.9.0", "2.0.0", "2.1.0", "3.0.0"]


@pytest.mark.parametrize("spec,expected", [
    (">=1.2.0 <2.0.0", "1.9.0"), ("^1 || ^2", "2.1.0"), ("1.2.3 - 2.3.4", "2.1.0"),
    (">= 1.2.0 < 2.0.0", "1.9.0"),  # npm allows a space after the operator
    ("=v1.9.0", "1.9.0"), ("1.9.0+build.7", "1.9.0"),  # "v" and build metadata do not matter to npm
    ("~1 || >=3", "3.0.0"), (">1 <=2.0", "2.0.0"), ("1.x || 2.0.x", "2.0.0"),
])
def test_npm_ranges_pick_the_highest_satisfying_version(spec, expected):
    assert pick(spec, RANGES) == (expected, None)


def test_unsatisfied_compound_range_falls_back_to_nearest_of_its_first_version():
    version, note = pick("^5 || ^6", RANGES)
    assert version == "3.0.0" and "major" in note
    version, note = pick(">=2.0.5 <2.0.9", RANGES)
    assert version == "2.0.0" and "nearest" in note  # same minor as 2.0.5 beats 2.1.0


PRE = ["2.0.0", "2.1.0", "3.0.0-beta.1"]


def test_ranges_skip_prereleases_unless_they_name_one():
    assert pick("^2 || ^3", PRE) == ("2.1.0", None)
    assert pick(">=2.0.0", PRE) == ("2.1.0", None)
    assert pick("^3.0.0-beta.0", PRE) == ("3.0.0-beta.1", None)
    version, note = pick("3", PRE)  # no 3.x release: the 3.x prerelease is the nearest, with a note
    assert version == "3.0.0-beta.1" and note


def test_latest_is_the_newest_release_not_a_prerelease():
    assert pick("latest", PRE) == ("2.1.0", None)
    assert pick("", PRE) == ("2.1.0", None)
    assert pick("latest", ["1.0.0-rc.1", "1.0.0-rc.2"]) == ("1.0.0-rc.2", None)


def test_unparseable_range_serves_newest_with_note_and_log(caplog):
    with caplog.at_level("WARNING", logger="webmend.cdn.semver"):
        version, note = pick(">>1.0 garbage", RANGES)
    assert version == "3.0.0" and "unknown version tag" in note
    assert any(">>1.0 garbage" in r.getMessage() and "newest" in r.getMessage() for r in caplog.records)


def test_satisfies_npm_ranges():
    assert satisfies("^1 || ^2", "2.1.0")
    assert not satisfies(">=1.2.0 <2.0.0", "2.0.0")
    assert satisfies("1.2.3 - 2.3.4", "2.3.4")
    assert not satisfies("^2", "2.2.0-beta.1")
    assert satisfies("^2.2.0-beta.0", "2.2.0-beta.1")

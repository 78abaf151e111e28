"""Parameters: every chapter's parameters declared, the grammar, the checks, strict YAML."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from dadp_book.discovery import list_chapters
from dadp_book.errors import BuildError
from dadp_book.parameters import (
    VOCABULARY,
    chapter_parameters,
    declaration_problems,
    load_profile,
    parse_assignments,
    validate_parameters,
)
from dadp_book.spec import DeclarationError, Spec, SpecError, parse_declaration
from dadp_book.yamlio import load_yaml_file, load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list_chapters(ROOT)


# ------------------------------------------------------- every chapter declared
@pytest.mark.parametrize("slug", CHAPTERS)
def test_every_parameter_has_a_type_and_range_and_its_default_obeys_it(slug):
    params = chapter_parameters(ROOT, slug)
    assert params, f"{slug} has no parameters"
    assert declaration_problems(params) == []
    assert all(p.has_default for p in params), "a default the checks cannot see"


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_every_profile_value_passes_the_checks(profile):
    values = load_profile(ROOT, profile)
    assert set(values) <= set(CHAPTERS)
    for slug in CHAPTERS:
        validate_parameters(ROOT, slug, values.get(slug, {}))


def test_the_vocabulary_table_of_the_reproducibility_page_is_the_vocabulary():
    page = (ROOT / "book" / "reproducibility.md").read_text()
    rows = dict(re.findall(r"^\| `([A-Z_*]+)` \| `([^`]+)` \|", page, flags=re.M))
    expected = {name: entry.split(";")[0] for name, entry in VOCABULARY.items()}
    assert rows == expected


def test_an_undeclared_parameter_and_a_default_out_of_range_are_found(tmp_path):
    from toybook import TOY_CHAPTER, make_toy_book

    text = TOY_CHAPTER.replace('LABELS = ["a"]  # list[str]', "LABELS = 5\nK = 0")
    root = make_toy_book(tmp_path, text)
    problems = declaration_problems(chapter_parameters(root, "00-toy"))
    assert problems[0].startswith("LABELS: undeclared")
    assert problems[1] == "K: default 0 0 is outside [1, 1000] (int in [1, 1000])"
    with pytest.raises(BuildError, match="parameters cell: LABELS: undeclared"):
        validate_parameters(root, "00-toy", {})


# ------------------------------------------------------------------- grammar
@pytest.mark.parametrize(
    "text",
    [
        "int in [1, 64]",
        "float in (0, 1)",
        "list[float] in [0, inf)",
        "list[str] one of race, sex, distinct",
        "float in [0, inf]",
        "dataset",
        "list[dataset], distinct",
        "bool",
        "str one of a, b",
    ],
)
def test_a_declaration_describes_itself_in_its_own_words(text):
    spec, meaning = parse_declaration(f"{text}; what it means")
    assert spec.describe() == text and meaning == "what it means"


@pytest.mark.parametrize(
    "text", ["integer in [1, 2]", "int in [a, 2]", "int in [1, 2], sorted", "str in [0, 1]"]
)
def test_a_malformed_declaration_is_an_error(text):
    with pytest.raises(DeclarationError):
        parse_declaration(text)


# -------------------------------------------------------------------- checks
@pytest.mark.parametrize(
    ("declaration", "value", "expected"),
    [
        ("int in [1, 10]", 1000.0 / 100, 10),
        ("int in [1, 10]", 1, 1),
        ("float in (0, inf)", 2, 2.0),
        ("float in (0, inf)", 1e-3, 0.001),
        ("float in [0, inf]", math.inf, math.inf),
        ("list[float] in (0, inf)", 0.5, [0.5]),
        ("list[int] in [1, 5]", [1, 1, 2], [1, 1, 2]),
        ("bool", False, False),
    ],
)
def test_accepted_values_come_back_as_the_chapter_should_see_them(declaration, value, expected):
    checked = parse_declaration(declaration)[0].check(value)
    assert checked == expected and type(checked) is type(expected)


@pytest.mark.parametrize(
    ("declaration", "value", "message"),
    [
        ("int in [1, 10]", 2.5, "must be an integer, got 2.5"),
        ("int in [1, 10]", True, "must be an integer, got True"),
        ("int in [1, 10]", "3", "must be an integer, got '3'"),
        ("int in [1, 10]", 11, "11 is outside [1, 10]"),
        ("float in (0, inf)", 0, "0 is outside (0, inf)"),
        ("float in (0, inf)", math.inf, "inf is outside (0, inf)"),
        ("float in (0, inf)", math.nan, "is NaN"),
        ("float in (0, inf)", False, "must be a number, got False"),
        ("list[float] in (0, inf)", [], "is an empty list"),
        ("list[str] one of a, b, distinct", ["a", "a"], "lists a more than once"),
        ("list[str] one of a, b", ["c"], "'c' is not one of a, b"),
        ("int in [1, 10]", [1], "takes one int, not a list"),
        ("bool", 1, "must be true or false"),
        ("dataset", "mars2019", "neither a registered dataset"),
        ("dataset", "nowhere.csv", "dataset file nowhere.csv does not exist"),
    ],
)
def test_refused_values_say_why(declaration, value, message):
    with pytest.raises(SpecError, match=re.escape(message)):
        parse_declaration(declaration)[0].check(value)


def test_a_dataset_is_a_registered_name_or_an_existing_csv_or_parquet(tmp_path):
    spec = Spec("dataset")
    assert spec.check("ma2019") == "ma2019"
    for name in ("mine.csv", "mine.parquet"):
        (tmp_path / name).write_text("x\n")
        assert spec.check(str(tmp_path / name)) == str((tmp_path / name).resolve())
    (tmp_path / "mine.txt").write_text("x\n")
    with pytest.raises(SpecError, match="nor a .csv or .parquet file"):
        spec.check(str(tmp_path / "mine.txt"))


def test_chapter_02_allows_epsilon_zero_but_not_a_negative_one():
    slug = "02-sufficient-condition-lemma"
    assert validate_parameters(ROOT, slug, {"EPSILONS": [0, 1]}) == {"EPSILONS": [0.0, 1.0]}
    with pytest.raises(BuildError, match=r"EPSILONS -0.5 is outside \[0, 100\]"):
        validate_parameters(ROOT, slug, {"EPSILONS": [-0.5]})
    with pytest.raises(BuildError, match=r"EPSILONS 0 is outside \[0.001, 100\]"):
        validate_parameters(ROOT, "12-data-release-tables", {"EPSILONS": [0]})


def test_command_line_values_are_read_as_the_user_means_them():
    params = chapter_parameters(ROOT, "12-data-release-tables")
    pairs = [("EPSILONS", "1e-3"), ("REPS", "2E2"), ("QI", "[race, sex]"), ("SEED", "7")]
    values = validate_parameters(ROOT, "12-data-release-tables", parse_assignments(params, pairs))
    assert values == {"EPSILONS": [0.001], "REPS": 200, "QI": ["race", "sex"], "SEED": 7}
    dataset = chapter_parameters(ROOT, "07-swapping-bias")
    assert parse_assignments(dataset, [("DATASET", "2019")]) == {"DATASET": "2019"}


# ---------------------------------------------------------------------- YAML
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1e-3", 0.001),
        ("-1e-3", -0.001),
        ("2E5", 200000.0),
        ("1.", 1.0),
        ("010", 10.0),
        ("yes", "yes"),
        ("off", "off"),
        ("true", True),
        ("1:20", "1:20"),
        ("2019-01-01", "2019-01-01"),
        ("[1e-3, 2]", [0.001, 2]),
    ],
)
def test_yaml_numbers_and_words_are_read_as_a_user_means_them(text, value):
    assert load_yaml_text(text, "value") == value


def test_a_duplicate_yaml_key_is_an_error_naming_the_key_and_lines(tmp_path):
    path = tmp_path / "grid.yaml"
    path.write_text("REPS: [20, 40]\nSEED: 1\nREPS: [60]\n")
    with pytest.raises(BuildError, match="duplicate key 'REPS' on lines 1 and 3"):
        load_yaml_file(path, "grid file")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("REPS: 2\n".encode("utf-16"), "is UTF-16 text; save it as UTF-8"),
        (b"\x00\x01\x02REPS", "is a binary file"),
        (b"REPS: \xe9\n", "is not UTF-8 text (byte 6)"),
    ],
)
def test_a_file_that_is_not_utf8_text_gets_a_one_line_error(tmp_path, content, message):
    path = tmp_path / "values.yaml"
    path.write_bytes(content)
    with pytest.raises(BuildError, match=re.escape(message)) as error:
        load_yaml_file(path, "parameter file")
    assert "\n" not in str(error.value)

"""The book's structure, held together so that adding a chapter, a module or a dependency
fails loudly instead of half-working:

- the machinery refuses a chapter its profile does not name (it would silently run at full
  size in CI); the chapter template stays out of the book (``tests/test_manifest.py`` holds
  each chapter's toc entry, profile entries, sidecar and table rows together);
- one ruff version for pre-commit, ``pyproject.toml`` and the lock file; the lock pins every
  requirement of ``pyproject.toml``; ``environment.yml`` lists the same requirements;
- the API reference (``book/api.md``) documents every unit of the package's layers, in its
  layer, and every public name with its docstring (the last check on the built HTML).
"""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_layers import LAYER_OF
from toybook import TOY_SLUG, make_toy_book

from dadp_book.cli import main
from dadp_book.discovery import list_chapters
from dadp_book.errors import BuildError
from dadp_book.parameters import PROFILES, load_profile, profile_values

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = list_chapters(ROOT)
TEMPLATE = "_template"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
LOCK = ROOT / "requirements.lock"


# ------------------------------------------------------------------- chapters
def test_a_chapter_missing_from_its_profile_is_refused(tmp_path, capsys):
    root = make_toy_book(tmp_path)
    (root / "profiles").mkdir()
    (root / "profiles" / "quick.yml").write_text("chapters: {}\n")
    with pytest.raises(BuildError, match=f"profiles/quick.yml has no entry for chapter {TOY_SLUG}"):
        profile_values(root, TOY_SLUG, "quick")
    assert profile_values(root, TOY_SLUG, None) == {}  # no profile: the chapter's defaults
    for command in (["build", "--profile", "quick"], ["run", TOY_SLUG, "--profile", "quick"]):
        assert main(["--root", str(root), *command]) == 1
        assert f"no entry for chapter {TOY_SLUG}" in capsys.readouterr().err
    assert not (root / "_build").exists() and not (root / "runs").exists()


def test_the_chapter_template_stays_out_of_the_book():
    assert (ROOT / "notebooks" / f"{TEMPLATE}.md").is_file()
    assert TEMPLATE not in CHAPTERS
    assert all(TEMPLATE not in load_profile(ROOT, p) for p in PROFILES)


def test_the_template_follows_the_chapters_skeleton():
    from test_notebook_hygiene import SKELETON

    text = (ROOT / "notebooks" / f"{TEMPLATE}.md").read_text()
    assert re.findall(r"^## (.+?)\s*$", text, re.M) == SKELETON
    assert re.search(r"^\(ch-[a-z-]+\)=\n# ", text, re.M), "label line above the title"
    assert text.count("```{exercise}") >= 2 and ":tags: [parameters]" in text


# ------------------------------------------------------------------- environment
def _requirements() -> list[Requirement]:
    """The requirements of the ``dev`` extra (what ``make`` installs), extras expanded."""
    project = canonicalize_name(PYPROJECT["project"]["name"])
    extras = PYPROJECT["project"]["optional-dependencies"]
    found = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    todo, seen = ["dev"], set()
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for line in extras[extra]:
            requirement = Requirement(line)
            if canonicalize_name(requirement.name) == project:
                todo += sorted(requirement.extras)
            else:
                found.append(requirement)
    return found


def _pin(requirement: str) -> tuple[str, str]:
    name, version = requirement.split("==")
    return canonicalize_name(name), version.strip()


def _ruff_pins() -> dict[str, str]:
    pins = {}
    dev = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["dev"]]
    (ruff,) = [r for r in dev if r.name == "ruff"]
    pins["pyproject.toml"] = str(ruff.specifier)
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())["repos"]
    for hook in (h for repo in hooks for h in repo["hooks"]):
        for dependency in hook.get("additional_dependencies", []):
            if canonicalize_name(Requirement(dependency).name) == "ruff":
                pins[f".pre-commit-config.yaml ({hook['id']})"] = str(
                    Requirement(dependency).specifier
                )
    for line in LOCK.read_text().splitlines():
        if line.startswith("ruff=="):
            pins["requirements.lock"] = "==" + _pin(line.split(";")[0])[1]
    return pins


def test_one_ruff_version_for_pre_commit_the_environment_and_the_lock():
    pins = _ruff_pins()
    assert len(pins) >= 4, pins  # pyproject, the two pre-commit hooks, the lock
    assert len(set(pins.values())) == 1 and next(iter(pins.values())).startswith("=="), pins


def test_the_lock_pins_every_requirement_of_pyproject():
    """``requirements.lock`` is ``uv pip compile`` of the dev extra (``make lock``); a new or
    changed requirement in pyproject.toml needs a new lock."""
    pins: dict[str, str] = {}
    for line in LOCK.read_text().splitlines():
        if not line or line[0] in "# ":
            continue
        requirement, _, marker = line.partition(";")
        if not marker.strip() or Marker(marker).evaluate():
            name, version = _pin(requirement)
            pins[name] = version
    problems = []
    for requirement in _requirements():
        version = pins.get(canonicalize_name(requirement.name))
        if version is None or not requirement.specifier.contains(version, prereleases=True):
            problems.append(f"{requirement} (lock: {version})")
    assert not problems, f"run 'make lock': the lock does not satisfy {problems}"


def _conda_entries() -> dict[str, str]:
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    conda = [d for d in environment["dependencies"] if isinstance(d, str)]
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    entries = {}
    for spec in conda + [p for p in pip if not p.startswith("-e")]:
        name = re.split(r"[<>=!~\s]", spec, maxsplit=1)[0]
        entries[canonicalize_name(name)] = spec[len(name) :].strip()
    return entries


def test_environment_yml_lists_the_requirements_of_pyproject():
    """environment.yml is the conda description of the dev extra: the same packages with
    the same bounds (a requirement with extras, ``dask[distributed]``, is the package and
    one conda package per extra)."""
    entries = _conda_entries()
    python = entries.pop("python")
    assert PYPROJECT["project"]["requires-python"] == ">=" + python.lstrip("=")
    entries.pop("pip")
    expected = {}
    for requirement in _requirements():
        for name in [requirement.name, *sorted(requirement.extras)]:
            expected[canonicalize_name(name)] = str(requirement.specifier)
    normalised = {name: str(Requirement(f"x{spec}").specifier) for name, spec in entries.items()}
    assert normalised == expected


# ------------------------------------------------------------------- API reference
API_PAGE = ROOT / "book" / "api.md"


def _api_units() -> dict[str, int]:
    """``unit -> layer`` as book/api.md documents them (automodule under '## Layer N')."""
    units, layer = {}, None
    for line in API_PAGE.read_text().splitlines():
        heading = re.match(r"## Layer (\d+)", line)
        layer = int(heading.group(1)) if heading else layer
        module = re.match(r"\.\. automodule:: dadp_lite\.(\w+)$", line)
        if module:
            units[module.group(1)] = layer
    return units


def test_the_api_page_documents_every_unit_in_its_layer():
    public = {unit: level for unit, level in LAYER_OF.items() if not unit.startswith("_")}
    assert _api_units() == public
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    back = next(p for p in toc["parts"] if p["caption"] == "Back matter")
    assert {"file": "book/api"} in back["chapters"]


def _units_all() -> dict[str, list[str]]:
    return {
        unit: list(importlib.import_module(f"dadp_lite.{unit}").__all__)
        for unit in _api_units()
        if unit != "book"
    }


def test_every_flat_name_is_documented_under_its_unit():
    import dadp_lite

    documented = {
        id(getattr(importlib.import_module(f"dadp_lite.{unit}"), name))
        for unit, names in _units_all().items()
        for name in names
    }
    flat = [
        name
        for name in dadp_lite.__all__
        if name not in _api_units() and id(getattr(dadp_lite, name)) not in documented
    ]
    assert not flat, f"dl.{flat} is in no unit's __all__: the API page would miss it"


@pytest.mark.book
def test_the_api_page_has_an_entry_with_text_for_every_public_name(html):
    from bs4 import BeautifulSoup

    soup = BeautifulSoup((html / "book" / "api.html").read_text(), "html.parser")
    entries = {dt["id"]: dt.find_next_sibling("dd") for dt in soup.select("dl.py > dt[id]")}
    missing, empty = [], []
    for unit, names in _units_all().items():
        for name in names:
            entry = entries.get(f"dadp_lite.{unit}.{name}")
            if entry is None:
                missing.append(f"{unit}.{name}")
            elif not entry.get_text(strip=True):
                empty.append(f"{unit}.{name}")
    assert not missing, f"no entry on the API page for {missing}"
    assert not empty, f"entries without a docstring (or #: comment): {empty}"

"""The package's layering, enforced: a module imports only modules of lower layers.

Data flows down ``LAYERS`` (files are read, counted, released, compared with exact values,
summarised, drawn); imports point up it. Two units of the same layer never import each
other (``mechanisms`` and ``theory`` are siblings: samplers and exact answers stay
independent, so one can check the other). Inside a package (``theory/``, ``experiments/``,
``registry/``, ...) modules may import each other. Every import counts, including ones
inside functions. ARCHITECTURE.md draws the same picture.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dadp_lite"

#: Lowest layer first. A unit is a top-level module or subpackage of dadp_lite (``registry``
#: is the package of the records: one module per family, the types in ``registry.record``).
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_types", "_validate", "resources"),
    ("data", "definitions", "metrics", "paper", "verification"),
    ("histogram", "words"),
    ("dataset",),
    ("mechanisms", "theory"),
    ("registry", "simulate"),
    ("experiments", "audit"),
    ("plotting", "tables", "errata", "interactive"),
    ("summaries",),
)
LAYER_OF = {unit: level for level, units in enumerate(LAYERS) for unit in units}
#: Imports a lower layer would allow but the design forbids: samplers do not summarise
#: their releases (that is the experiments' job, through ``metrics``).
FORBIDDEN = {("mechanisms", "metrics")}


def _unit(module: str) -> str:
    """``dadp_lite.theory.swapping`` -> ``theory``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _module_name(path: Path) -> str:
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1] if len(parts) > 1 else parts
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every ``dadp_lite`` module imported anywhere in the file, with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = _module_name(path).rsplit(".", 0 if path.name == "__init__.py" else 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("dadp_lite")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against the file's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name == "dadp_lite":  # "from dadp_lite import theory": the names are units
                found += [(node.lineno, f"dadp_lite.{a.name}") for a in node.names]
            elif name.startswith("dadp_lite"):
                found.append((node.lineno, name))
    return found


def _violations(path: Path) -> list[str]:
    source = _unit(_module_name(path))
    if source == "__init__":  # the package's face re-exports every layer
        return []
    problems = []
    for line, target in _imports(path):
        unit = _unit(target)
        if unit == source or unit not in LAYER_OF:
            continue
        if (source, unit) in FORBIDDEN or LAYER_OF[unit] >= LAYER_OF[source]:
            where = path.relative_to(PACKAGE.parent)
            problems.append(
                f"{where}:{line} imports {target} ({unit}, layer {LAYER_OF[unit]}) from "
                f"{source} (layer {LAYER_OF[source]})"
            )
    return problems


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_unit_of_the_package_has_a_layer():
    units = {_unit(_module_name(p)) for p in SOURCES} - {"__init__"}
    assert units <= set(LAYER_OF), f"add to LAYERS: {sorted(units - set(LAYER_OF))}"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_point_to_lower_layers_only(path):
    assert _violations(path) == []


def _machinery_imports(path: Path) -> list[str]:
    """Every import of the build machinery ``dadp_book`` in a file, with its line."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names = [node.module or ""]
        found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno} imports {n}"
                  for n in names if n == "dadp_book" or n.startswith("dadp_book.")]  # fmt: skip
    return found


def test_the_science_library_imports_nothing_of_the_build_machinery():
    """``dadp_lite`` is the science library; the build tool ``dadp_book`` sits on top of it
    and nothing in ``dadp_lite`` may import it (not even inside a function)."""
    assert [line for path in SOURCES for line in _machinery_imports(path)] == []


def test_the_boundary_check_catches_an_import_of_the_machinery(tmp_path, monkeypatch):
    fake_package = tmp_path / "dadp_lite"
    fake_package.mkdir()
    bad = fake_package / "tables.py"
    bad.write_text("def f():\n    from dadp_book.cli import main\nimport dadp_book\n")
    monkeypatch.setattr(f"{__name__}.PACKAGE", fake_package)
    assert len(_machinery_imports(bad)) == 2


def test_the_checker_catches_sideways_upward_and_forbidden_imports(tmp_path, monkeypatch):
    """A mechanism importing the theory (a sibling), plotting (above) or metrics (allowed by
    the layers, forbidden by design) is refused; importing the histogram is fine."""
    fake_package = tmp_path / "dadp_lite"
    (fake_package / "mechanisms").mkdir(parents=True)
    bad = fake_package / "mechanisms" / "bad.py"
    bad.write_text(
        "from dadp_lite.theory import swapping\nimport dadp_lite.plotting\n"
        "def f():\n    from dadp_lite.metrics import l1_norm\n"
        "from dadp_lite.histogram import Histogram\n"
    )
    monkeypatch.setattr(f"{__name__}.PACKAGE", fake_package)
    problems = _violations(bad)
    assert len(problems) == 3
    assert "theory" in problems[0] and "plotting" in problems[1] and "metrics" in problems[2]


def _module_imports(path: Path) -> set[str]:
    """The ``dadp_lite`` modules a file imports (anywhere in it), a ``from package import
    submodule`` resolved to the submodule; packages' ``__init__`` files left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = {target for _, target in _imports(path)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {f"{node.module}.{a.name}" for a in node.names}
    modules = {_module_name(p) for p in SOURCES if p.name != "__init__.py"}
    return found & modules


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import circle of ``graph`` (module -> modules it imports), or []."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_no_module_of_the_package_imports_itself_in_a_circle():
    """Modules of one package may import each other (the layers allow it), but never in a
    circle, not even through an import inside a function (``data.files`` and
    ``data.encoding`` once did)."""
    graph = {_module_name(p): _module_imports(p) for p in SOURCES if p.name != "__init__.py"}
    assert _cycle(graph) == []


def test_the_circle_check_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []

"""``dadp-book glue BUILD_DIR``: every glued value of the executed notebooks, one per line.

myst-nb stores ``glue(name, value, display=False)`` as a ``display_data`` output whose
metadata holds ``scrapbook.name`` and whose mime keys carry the prefix
``application/papermill.record/``. Printing ``slug<TAB>key<TAB>text/plain`` for each, sorted,
gives a listing that two builds can be compared by (a refactor must leave it unchanged).
"""

from __future__ import annotations

import json
from pathlib import Path

from dadp_book.errors import BuildError

__all__ = ["glued_values", "glue_lines"]

MIME_PREFIX = "application/papermill.record/"


def _notebooks(build_dir: Path) -> list[Path]:
    base = build_dir / "stage" if (build_dir / "stage").is_dir() else build_dir
    found = []
    for path in sorted(base.rglob("*.ipynb")):
        parts = path.relative_to(base).parts
        if not any(p.startswith(".") or p in ("_build", "html", "jb") for p in parts):
            found.append(path)
    return found


def _text(data: dict, prefix: str) -> str:
    value = data.get(f"{prefix}text/plain", "")
    text = "".join(value) if isinstance(value, list) else str(value)
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def glued_values(notebook: Path) -> list[tuple[str, str]]:
    """``(key, text/plain)`` of every glued value of one executed notebook."""
    try:
        content = json.loads(notebook.read_text())
    except (OSError, ValueError) as error:
        raise BuildError(f"cannot read notebook {notebook}: {error}") from error
    values = []
    for cell in content.get("cells", []):
        for output in cell.get("outputs", []):
            scrapbook = output.get("metadata", {}).get("scrapbook", {})
            if output.get("output_type") == "display_data" and "name" in scrapbook:
                prefix = scrapbook.get("mime_prefix", MIME_PREFIX)
                values.append((str(scrapbook["name"]), _text(output.get("data", {}), prefix)))
    return values


def glue_lines(build_dir: Path) -> list[str]:
    """Sorted ``slug<TAB>key<TAB>text`` lines of every executed notebook in ``build_dir``."""
    if not build_dir.is_dir():
        raise BuildError(f"{build_dir} is not a folder")
    notebooks = _notebooks(build_dir)
    if not notebooks:
        raise BuildError(f"no executed notebooks under {build_dir}")
    lines = [
        f"{path.stem}\t{key}\t{text}" for path in notebooks for key, text in glued_values(path)
    ]
    return sorted(lines)

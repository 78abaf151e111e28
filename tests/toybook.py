"""A toy book for the machinery's tests: one tiny chapter that writes two CSVs.

The chapter costs one kernel start and no data; it fails on purpose when ``X == 3``, and
when ``X == 7`` it sends SIGTERM to the ``dadp-book`` process that runs it and waits to be
stopped (to test that an interrupted run or sweep leaves no temporary folder behind).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import yaml

TOY_SLUG = "00-toy"
TOY_CHAPTER = textwrap.dedent(
    """\
    ---
    jupytext:
      text_representation:
        extension: .md
        format_name: myst
        format_version: 0.13
    kernelspec:
      display_name: Python 3
      language: python
      name: python3
    ---

    # Toy chapter

    ```{code-cell} ipython3
    import pandas as pd
    ```

    ```{code-cell} ipython3
    :tags: [parameters]

    X = 1  # int in [0, 10]; the toy's input
    EPSILON = 1.0
    SEED = 0
    LABELS = ["a"]  # list[str]
    DATASET = "ma2019"
    ```

    ```{code-cell} ipython3
    assert X != 3, "X == 3 fails on purpose"
    if X == 7:  # SIGTERM to the outermost dadp-book process, then wait to be stopped
        import os, signal, psutil
        found = [p for p in psutil.Process().parents() if "dadp_book.cli" in p.cmdline()]
        os.kill(found[-1].pid, signal.SIGTERM)
        signal.pause()
    rows = [{"label": label, "value": X * EPSILON + SEED} for label in LABELS]
    pd.DataFrame(rows).to_csv("00-toy-values.csv", index=False)
    pd.DataFrame([{"x_squared": X * X}]).to_csv("00-toy-squares.csv", index=False)
    ```
    """
)


def make_toy_book(folder: Path, chapter: str = TOY_CHAPTER) -> Path:
    """Write the toy book into ``folder/toy``; returns its root."""
    root = folder / "toy"
    (root / "notebooks").mkdir(parents=True)
    (root / "notebooks" / f"{TOY_SLUG}.md").write_text(chapter)
    (root / "_config.yml").write_text("title: toy\n")
    toc = {"format": "jb-book", "root": "intro", "chapters": [{"file": f"notebooks/{TOY_SLUG}"}]}
    (root / "_toc.yml").write_text(yaml.safe_dump(toc))
    return root


def write(path: Path, text: str) -> Path:
    """Write dedented ``text`` to ``path``; returns the path."""
    path.write_text(textwrap.dedent(text))
    return path


def entries(folder: Path) -> list[str]:
    """Names in ``folder`` (empty if it does not exist)."""
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []

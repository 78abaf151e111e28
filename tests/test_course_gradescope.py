"""The autograder bundles grade as Gradescope does, in an environment made from the zip alone.

For each graded chapter the test reads the pip requirements of the zip's
``environment.yml`` (what otter's ``setup.sh`` installs on Gradescope), installs exactly
those into a fresh virtual environment with uv (from the package registry; no package of
this project's environment is reused), and runs ``otter run`` (otter's own grading, as
Gradescope's ``run_autograder`` does) on every instructor notebook: each must score full
marks. A missing package (a test importing scipy without the zip naming it) scores less.
The first run downloads the packages (about a minute); later runs use uv's cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from dadp_book.cli import main
from dadp_book.course.questions import load_chapter
from dadp_book.discovery import list_chapters

ROOT = Path(__file__).resolve().parents[1]
UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")

pytestmark = [pytest.mark.book, pytest.mark.skipif(UV is None, reason="uv is not installed")]


def _pip_requirements(bundle: Path) -> list[str]:
    with zipfile.ZipFile(bundle) as archive:
        environment = yaml.safe_load(archive.read("environment.yml"))
    (pip,) = [d["pip"] for d in environment["dependencies"] if isinstance(d, dict)]
    python = [d for d in environment["dependencies"] if str(d).startswith("python=")]
    assert python == [f"python={sys.version_info.major}.{sys.version_info.minor}"]
    return pip


def test_instructor_notebooks_score_full_marks_in_the_zips_environment(tmp_path):
    kit = tmp_path / "kit"
    assert main(["--root", str(ROOT), "course", "--out", str(kit), "--no-pdf"]) == 0
    chapters = [load_chapter(ROOT, s) for s in list_chapters(ROOT)]
    requirements = sorted(
        {r for c in chapters for r in _pip_requirements(kit / "autograder" / f"{c.slug}.zip")}
    )
    (tmp_path / "requirements.txt").write_text("\n".join(requirements) + "\n")
    env = tmp_path / "env"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON"))}
    subprocess.run(
        [UV, "venv", "--quiet", "--python", sys.executable, str(env)], check=True, env=clean
    )
    python = env / "bin" / "python"
    subprocess.run(
        [
            UV,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "-r",
            str(tmp_path / "requirements.txt"),
        ],
        check=True,
        env=clean,
        timeout=1800,
    )
    for chapter in chapters:
        out = tmp_path / "results" / chapter.slug
        out.mkdir(parents=True)
        notebook = out / f"{chapter.slug}.ipynb"
        shutil.copy(kit / "instructor" / f"{chapter.slug}.ipynb", notebook)
        subprocess.run(
            [
                str(python),
                "-m",
                "otter",
                "run",
                "-a",
                str(kit / "autograder" / f"{chapter.slug}.zip"),
                "-o",
                str(out),
                "--no-logo",
                str(notebook),
            ],
            check=True,
            env={**clean, "MPLBACKEND": "Agg"},
            cwd=out,
            capture_output=True,
            timeout=600,
        )
        results = json.loads((out / "results.json").read_text())  # Gradescope's format
        scores = {t["name"]: (t["score"], t["max_score"]) for t in results["tests"] if "score" in t}
        want = {q.label: (q.points, q.points) for q in chapter.autograded}
        assert scores == want, (chapter.slug, results)

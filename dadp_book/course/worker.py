"""A grading process: grades one submitted notebook at a time with otter-grader.

:func:`serve` runs in a process of its own (started by :mod:`dadp_book.course.grade`),
in a session of its own so that its parent can stop it as a whole. It grades each notebook
it receives with ``otter.api.grade_submission`` (otter's local grading: no container, no
network) against the chapter's autograder bundle, and sends back the score of every
question and the first problem seen in the executed notebook.

Two changes to how otter executes the notebook, both made through nbconvert's
``ExecutePreprocessor`` (which otter's ``grade_notebook`` looks up when it runs, so
:func:`_install` replaces it in this process only):

- the kernel is the book's (:class:`dadp_book.execute.PinnedKernelManager`: Unix
  sockets instead of TCP ports, one BLAS thread), and its process id is sent to the parent,
  which kills it if the notebook overruns its time limit by a wide margin;
- a cell still running when the notebook's time limit is used up is interrupted (the
  kernel reports a ``KeyboardInterrupt``, the only interrupt the grader sends); the cells
  after it each get a few seconds, so the questions that do not depend on it are still
  graded.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dadp_book.execute import PinnedKernelManager

__all__ = ["GRACE_SECONDS", "grade_notebook", "serve"]

#: Seconds each remaining cell gets once the notebook's time limit is used up.
GRACE_SECONDS = 10
TIME_LIMIT_ERROR = "TimeLimit"

_deadline = math.inf
_limit = 0.0
_announce: Callable[[int], None] | None = None


class GradingKernelManager(PinnedKernelManager):
    """The book's kernel manager, telling the parent process each kernel's process id."""

    async def start_kernel(self, **kw: object) -> None:
        await super().start_kernel(**kw)
        pid = getattr(self.provisioner, "pid", None)
        if _announce is not None and pid:
            _announce(int(pid))


def _cell_timeout(cell: object) -> int:
    return max(GRACE_SECONDS, math.ceil(_deadline - time.monotonic()))


def _install() -> None:
    """Make otter execute notebooks with the book's kernels and the time limit."""
    import nbconvert.preprocessors as preprocessors

    base = preprocessors.ExecutePreprocessor
    if getattr(base, "_dadp_limited", False):
        return

    class LimitedExecutor(base):  # type: ignore[misc, valid-type]
        _dadp_limited = True

        def __init__(self, **kw: Any) -> None:
            super().__init__(**kw)
            self.kernel_manager_class = GradingKernelManager
            self.timeout_func = _cell_timeout
            self.interrupt_on_timeout = True
            self.error_on_timeout = {
                "ename": TIME_LIMIT_ERROR,
                "evalue": f"the notebook's time limit of {_limit:g} s was reached; "
                "this cell was interrupted",
                "traceback": [],
            }

    preprocessors.ExecutePreprocessor = LimitedExecutor


def _first_line(source: str) -> str:
    lines = [line.strip() for line in source.splitlines() if line.strip()]
    return (lines[0][:60] + ("..." if len(lines[0]) > 60 else "")) if lines else ""


def _first_problem(notebook: Any) -> tuple[str, str]:
    """``(status, note)`` of the first error in an executed notebook (``("ok", "")``)."""
    for cell in getattr(notebook, "cells", []):
        for output in cell.get("outputs", []) if cell.get("cell_type") == "code" else []:
            if output.get("output_type") != "error":
                continue
            where = f"the cell starting `{_first_line(cell.get('source', ''))}`"
            if output.get("ename") in (TIME_LIMIT_ERROR, "KeyboardInterrupt"):
                return "time limit", (
                    f"{where} was still running at the time limit ({_limit:g} s) and was "
                    "interrupted; the cells after it still ran"
                )
            return "cell error", f"{where} raised {output.get('ename')}: {output.get('evalue')}"
    return "ok", ""


def _failures(test_file: Any) -> list[str]:
    messages = []
    for result in getattr(test_file, "test_case_results", []):
        if not result.passed:
            lines = [line.strip() for line in str(result.message).splitlines() if line.strip()]
            kind = "hidden" if result.test_case.hidden else "visible"
            messages.append(f"{kind} test failed: {' '.join(lines[-2:])}"[:240])
    return messages


def grade_notebook(notebook: Path, bundle: Path, limit: float) -> dict:
    """Grade one notebook: ``{"status", "note", "questions": {name: {score, possible, ...}}}``."""
    global _deadline, _limit
    from otter.api import grade_submission

    _install()
    _limit = float(limit)
    _deadline = time.monotonic() + _limit
    try:
        results = grade_submission(str(notebook), str(bundle), quiet=True)
    except Exception as error:  # otter refused it, or the kernel died: say which, grade 0
        name = type(error).__name__
        if name == "DeadKernelError":
            note = "the kernel died while running it (a crash, or out of memory)"
        else:
            note = f"the grader could not run it: {name}: {str(error).strip()[:300]}"
        return {"status": "failed", "note": note, "questions": {}}
    finally:
        _deadline = math.inf
    status, note = _first_problem(results.notebook)
    questions = {
        name: {
            "score": float(test_file.score),
            "possible": float(test_file.possible),
            "failures": _failures(test_file),
        }
        for name, test_file in results.results.items()
    }
    return {"status": status, "note": note, "questions": questions}


def serve(log_path: str) -> None:
    """Grade ``{"notebook", "bundle", "limit"}`` tasks from stdin until it closes."""
    global _announce
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    _announce = lambda pid: send({"kernel": pid})  # noqa: E731
    for line in sys.stdin:
        task = json.loads(line)
        print(f"grading {task['notebook']}", flush=True)
        result = grade_notebook(Path(task["notebook"]), Path(task["bundle"]), task["limit"])
        send({"result": result})


if __name__ == "__main__":
    serve(sys.argv[1])

"""Verdicts outside the notebook: the autograder bundle's tests run on the values it produced.

The tests (otter's exception-based format, loaded with otter's public ``ExceptionTestFile``)
run with otter's scoring on the values the sandbox reported (:func:`.runner.decode`). A
function answer is a :class:`RecordedFunction`, answering the calls the sandbox made at the
inputs the tests use (:func:`discover_probes` finds them on the solution when the kit is
built), so nothing a notebook does to its own interpreter can change a verdict.
"""

from __future__ import annotations

import inspect
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dadp_book.course.runner import Opaque, call_key, decode, encode

__all__ = ["QuestionResult", "RecordedFunction", "UnprobedCall", "discover_probes"]
__all__ += ["evaluate_question", "read_bundle_tests", "test_arguments"]


class UnprobedCall(RuntimeError):
    """A test called a function answer at an input the sandbox did not call it at."""


class RecordedFunction:
    """A student's function, as the calls the sandbox made to it."""

    def __init__(self, name: str, calls: dict[str, Any]) -> None:
        self.__name__ = name
        self._calls = calls

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = call_key(_encode_call(args, kwargs))
        if key not in self._calls:
            raise UnprobedCall(f"{self.__name__} was not called at this input while grading")
        outcome = self._calls[key]
        if not isinstance(outcome, dict):
            raise UnprobedCall(f"{self.__name__}: unreadable result")
        if "raised" in outcome:
            kind, message = (list(outcome["raised"]) + ["", ""])[:2]
            raise RuntimeError(f"the function raised {kind}: {message}")
        return decode(outcome.get("value"))


class _Recorder:
    """The solution's function, remembering the (encoded) inputs it was called at."""

    def __init__(self, function: Callable, calls: list) -> None:
        self._function, self._calls = function, calls
        self.__name__ = getattr(function, "__name__", "function")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        encoded = _encode_call(args, kwargs)
        if encoded not in self._calls:
            self._calls.append(encoded)
        return self._function(*args, **kwargs)


def _encode_call(args: tuple, kwargs: dict[str, Any]) -> list:
    return [[encode(a) for a in args], {k: encode(v) for k, v in kwargs.items()}]


def _test_function(source: str) -> Callable:
    namespace: dict = {}
    exec(source, namespace)
    (function,) = [v for k, v in namespace.items() if k.startswith("test") and callable(v)]
    return function


def test_arguments(source: str) -> list[str]:
    """The names a test function takes (the student's variables it checks)."""
    return list(inspect.signature(_test_function(source)).parameters)


def discover_probes(env: dict, tests: list[str]) -> dict[str, list]:
    """Every input at which ``tests`` call a function of ``env`` (the solution's values)."""
    probes: dict[str, list] = {}
    for source in tests:
        function = _test_function(source)
        arguments = {}
        for name in inspect.signature(function).parameters:
            value = env.get(name)
            if callable(value):
                value = _Recorder(value, probes.setdefault(name, []))
            arguments[name] = value
        function(**arguments)
    return probes


def read_bundle_tests(bundle: Path) -> dict[str, str]:
    """The test files of an otter autograder bundle, by question name."""
    with zipfile.ZipFile(bundle) as archive:
        return {
            Path(name).stem: archive.read(name).decode()
            for name in archive.namelist()
            if name.startswith("tests/") and name.endswith(".py")
        }


@dataclass
class QuestionResult:
    """A question's score and what went wrong, in the teacher's words and the student's."""

    score: float
    possible: float
    failed: list[str] = field(default_factory=list)  # the teacher's detail
    feedback: list[str] = field(default_factory=list)  # words for the student


def _environment(values: dict, calls: dict) -> dict:
    env: dict[str, Any] = {}
    for name, encoded in values.items():
        try:
            value = decode(encoded)
        except (ValueError, TypeError, KeyError, IndexError) as error:
            value = Opaque("unreadable", str(error)[:100])
        if isinstance(value, Opaque) and value.type_name == "function":
            value = RecordedFunction(name, calls.get(name, {}))
        env[name] = value
    return env


def evaluate_question(test_source: str, values: dict, calls: dict) -> QuestionResult:
    """Run one question's test file (otter's format) on the values a notebook produced."""
    from otter.test_files import ExceptionTestFile

    test_file = ExceptionTestFile.from_string(test_source, path="tests.py")
    env = _environment(values, calls)
    test_file.run(env)
    result = QuestionResult(float(test_file.score), float(test_file.possible))
    functions = [case.body.test_func for case in test_file.test_cases]
    names = {n for function in functions for n in inspect.signature(function).parameters}
    unanswered = sorted(n for n in names if isinstance(env.get(n), Opaque) and
                        env[n].type_name == "ellipsis")  # fmt: skip
    missing = sorted(n for n in names if n not in env)
    result.feedback += [f"`{n}` is still `...`: not answered" for n in unanswered]
    result.feedback += [
        f"`{n}` has no value when the notebook ends (its cell did not run to the end, or "
        "the name is spelled differently)"
        for n in missing
    ]
    for case in test_file.test_case_results:
        if case.passed:
            continue
        kind = "hidden" if case.test_case.hidden else "visible"
        name = case.test_case.body.test_func.__name__
        lines = [line.strip() for line in str(case.message).splitlines() if line.strip()]
        result.failed.append(f"{kind} {name}: {' '.join(lines[-2:])}"[:300])
        if case.test_case.hidden:
            words = case.test_case.failure_message or "a hidden check of this answer fails"
        elif missing or unanswered:
            continue  # said above
        else:  # the student has this test's code in the notebook: its message is no secret
            said = lines[-1].removeprefix("AssertionError:").strip() if lines else ""
            if said.startswith(("AssertionError", "Error at line")) or not said:
                said = "see the check cell under the answer"
            words = f"the check under the answer fails: {said}"
        result.feedback.append(words)
    return result

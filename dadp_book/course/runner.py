"""Run one submitted notebook inside the grading sandbox and report the values it produced.

A script run *inside* the sandbox (``python runner.py TASK.json``): it imports nothing of
``dadp_book``, only the standard library, psutil (and numpy and IPython). It runs the task's
cells one at a time in a *cell server* (``runner.py --serve``, an IPython shell in a child
process under the task's limits); a cell still running after its time is interrupted, and
if it does not stop, the server and everything it started are killed and the cells that had
run are run again in a new one, so a runaway answer costs its own question only. Then each
question's names are read and every function answer is called at the inputs its tests use.
Output: one JSON line, ``{"cells": [...], "questions": {label: {"values", "calls",
"problem"}}, "cpu": seconds}``, in a tagged-JSON codec (:func:`encode`; the host reads it
with :func:`decode`, which builds plain Python and numpy values only, never unpickles):
numbers keep their type and exact value, arrays their dtype and shape (numeric and bool
dtypes only), containers their kind; anything else becomes an opaque marker.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import signal
import subprocess
import sys
import time
from typing import Any

#: Largest encoded value (characters) the runner reports for one name.
MAX_VALUE_CHARS = 4_000_000
#: Seconds a cell gets to stop after an interrupt before its cell server is killed.
INTERRUPT_GRACE = 3.0
#: Seconds a new cell server gets to start (import IPython).
START_SECONDS = 60.0
_MAX_DEPTH = 20
#: True when the runner runs in a PID namespace of its own (the sandbox): every other
#: process there but its init is the student's, and may be killed.
OWN_PID_NAMESPACE = False
_NUMERIC_KINDS = "biufc"
_CONTAINERS: dict[str, type] = {"l": list, "t": tuple, "set": set, "fs": frozenset}
_TAGS = {kind: tag for tag, kind in _CONTAINERS.items()}


class Opaque:
    """A value the codec does not carry: its type's name and a short ``repr``."""

    def __init__(self, type_name: str, text: str) -> None:
        self.type_name, self.text = type_name, text

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.text}>"


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as tagged JSON (see the module's docstring)."""
    if depth > _MAX_DEPTH:
        return {"x": [type(value).__name__, "nested too deeply"]}
    if value is None or isinstance(value, bool) and type(value) is bool:
        return value
    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray):
        if value.dtype.kind in _NUMERIC_KINDS and value.dtype.fields is None:
            data = base64.b64encode(np.ascontiguousarray(value).tobytes()).decode()
            return {"a": [value.dtype.str, list(value.shape), data]}
        return {"ao": [encode(v, depth + 1) for v in value.tolist()]}
    if np is not None and isinstance(value, np.generic):
        if value.dtype.kind in _NUMERIC_KINDS:
            return {"ns": [value.dtype.str, encode(value.item(), depth + 1)]}
    if type(value) is int:
        return {"i": str(value)}
    if type(value) is float:
        return {"f": repr(value)}
    if type(value) is complex:
        return {"c": [repr(value.real), repr(value.imag)]}
    if type(value) is str:
        return {"s": value}
    if type(value) in _TAGS:
        items = sorted(value, key=repr) if type(value) in (set, frozenset) else value
        return {_TAGS[type(value)]: [encode(v, depth + 1) for v in items]}
    if type(value) is dict:
        return {"d": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if callable(value):
        return {"fn": getattr(value, "__name__", type(value).__name__)[:100]}
    try:
        text = repr(value)[:200]
    except Exception:  # a repr that raises
        text = "?"
    return {"x": [type(value).__name__[:100], text]}


def decode(data: Any, depth: int = 0) -> Any:
    """The value :func:`encode` described; never calls anything the data names."""
    if depth > _MAX_DEPTH + 2:
        raise ValueError("nested too deeply")
    if data is None or isinstance(data, bool):
        return data
    if not isinstance(data, dict) or len(data) != 1:
        raise ValueError(f"not an encoded value: {str(data)[:80]}")
    ((tag, body),) = data.items()
    if tag == "i":
        return int(str(body)[:5000])
    if tag == "f":
        return float(str(body))
    if tag == "c":
        return complex(float(body[0]), float(body[1]))
    if tag == "s":
        return str(body)
    if tag in _CONTAINERS:
        return _CONTAINERS[tag]([decode(v, depth + 1) for v in body])
    if tag == "ao":
        import numpy as np

        array = np.empty(len(body), dtype=object)
        array[:] = [decode(v, depth + 1) for v in body]
        return array
    if tag == "d":
        return {decode(k, depth + 1): decode(v, depth + 1) for k, v in body}
    if tag in ("a", "ns"):
        import numpy as np

        dtype = np.dtype(str(body[0]))
        if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None:
            raise ValueError(f"dtype {dtype} is not carried")
        if tag == "ns":
            return dtype.type(decode(body[1], depth + 1))
        shape = tuple(int(n) for n in body[1])
        raw = base64.b64decode(str(body[2]), validate=True)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    if tag == "fn":
        return Opaque("function", str(body))
    if tag == "x":
        return Opaque(str(body[0]), str(body[1]))
    raise ValueError(f"unknown tag {tag!r}")


def call_key(args: Any) -> str:
    """The canonical text of an encoded argument list (what a call is looked up by)."""
    return json.dumps(args, sort_keys=True, separators=(",", ":"))


# --------------------------------------------------------------------------- cell server


class _NoChecks:
    """Stands for otter's ``grader`` object: the grader never runs a student's checks."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


def _serve(reply_fd: int) -> None:
    """Run cells and captures sent on stdin; answer each with one JSON line on ``reply_fd``."""
    reply = os.fdopen(reply_fd, "w", buffering=1)
    busy = {"now": False}

    def interrupt(signum: int, frame: Any) -> None:
        if busy["now"]:
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, interrupt)
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.user_ns["__name__"] = "__main__"
    shell.user_ns["grader"] = _NoChecks()  # otter's cells are not run by the grader
    send = reply.write
    dumps, loads = json.dumps, json.loads
    reply.write(dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        request = loads(line)
        busy["now"] = True
        try:
            if request["op"] == "run":
                result = shell.run_cell(request["code"], store_history=False)
                error = result.error_before_exec or result.error_in_exec
                kind = None if error is None else [type(error).__name__, str(error)[:300]]
                answer: dict[str, Any] = {"error": kind}
            else:
                answer = _capture(shell.user_ns, request)
        except KeyboardInterrupt:
            answer = {"error": ["KeyboardInterrupt", ""]}
        finally:
            busy["now"] = False
        send(dumps(answer) + "\n")


def _capture(namespace: dict, request: dict) -> dict:
    """The question's names, encoded; each function called at its probes."""
    values: dict[str, Any] = {}
    calls: dict[str, dict[str, Any]] = {}
    for name in request["names"]:
        if name not in namespace:
            continue
        value = namespace[name]
        try:
            encoded = encode(value)
            text = json.dumps(encoded)
        except Exception as error:  # an object whose encoding fails
            encoded = {"x": [type(value).__name__[:100], f"unreadable: {error}"[:200]]}
            text = ""
        if len(text) > MAX_VALUE_CHARS:
            encoded = {"x": [type(value).__name__[:100], "too large to grade"]}
        values[name] = encoded
        if callable(value) and name in request["probes"]:
            calls[name] = {call_key(args): _call(value, args) for args in request["probes"][name]}
    return {"values": values, "calls": calls}


def _call(function: Any, args: Any) -> Any:
    try:
        positional = [decode(a) for a in args[0]]
        keywords = {str(k): decode(v) for k, v in args[1].items()}
        result = function(*positional, **keywords)
        encoded = encode(result)
        if len(json.dumps(encoded)) > MAX_VALUE_CHARS:
            return {"raised": ["ValueError", "the answer is too large to grade"]}
        return {"value": encoded}
    except KeyboardInterrupt:
        raise
    except Exception as error:
        return {"raised": [type(error).__name__, str(error)[:300]]}


# --------------------------------------------------------------------------- the runner


def _set_limits(limits: dict, drop: bool = False) -> None:
    """Set the limits; as root in the sandbox (``drop``), become the unprivileged ``nobody``."""
    import resource

    for name, value in limits.items():
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))
    if drop and os.getuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def _kill_others() -> None:
    """Kill every process of this sandbox but this one (its PID namespace's init excepted)."""
    import psutil

    for _ in range(5):
        others = [p for p in psutil.process_iter() if p.pid not in (1, os.getpid())]
        if not others:
            return
        for process in others:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs(others, timeout=0.05)


class CellServer:
    """A ``--serve`` child process, in a session of its own under ``limits``, and its replies."""

    def __init__(self, limits: dict) -> None:
        read_fd, write_fd = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(write_fd)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write_fd,),
            start_new_session=True,
            preexec_fn=lambda: _set_limits(limits),
            text=True,
        )
        os.close(write_fd)
        self._fd = read_fd
        self._buffer = b""
        ready = self.receive(START_SECONDS)
        if not isinstance(ready, dict) or not ready.get("ready"):
            raise RuntimeError("the cell server did not start")

    def receive(self, seconds: float) -> Any:
        """The next reply line, or None after ``seconds`` (or if the server died)."""
        deadline = time.monotonic() + seconds
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._fd], [], [], left)[0]:
                return None
            chunk = os.read(self._fd, 1 << 20)
            self._buffer += chunk
            if not chunk or len(self._buffer) > 64 * MAX_VALUE_CHARS:
                return None
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            return json.loads(line)
        except ValueError:
            return None

    def request(self, message: dict, seconds: float) -> tuple[Any, str]:
        """``(reply, how)``: how is ``ok``, ``interrupted`` or ``killed``."""
        try:
            self.process.stdin.write(json.dumps(message) + "\n")
            self.process.stdin.flush()
        except (OSError, ValueError):
            return None, "killed"
        reply = self.receive(seconds)
        if reply is not None:
            return reply, "ok"
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            reply = self.receive(INTERRUPT_GRACE)
            if reply is not None:
                return reply, "interrupted"
        return None, "killed"

    def kill(self) -> None:
        """Stop the server and everything it started (in the sandbox: every other process)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        if OWN_PID_NAMESPACE:
            _kill_others()
        self.process.wait()
        os.close(self._fd)


def _restart(server: CellServer, task: dict, sources: list[str]) -> tuple[CellServer, list[int]]:
    """Kill ``server``; a new one that ran ``sources`` again, and the positions that failed."""
    server.kill()
    server = CellServer(task["limits"])
    failed = []
    for position, source in enumerate(sources):
        reply, how = server.request({"op": "run", "code": source}, float(task["seconds"]))
        if how != "ok" or (isinstance(reply, dict) and reply.get("error")):
            failed.append(position)
            if how == "killed":
                server.kill()
                server = CellServer(task["limits"])
    return server, failed


def _run_cells(task: dict) -> tuple[CellServer, list[dict]]:
    """Run every cell; a runaway or fatal cell is left out of every later replay."""
    cells = task["cells"]
    outcomes: list[dict] = [{} for _ in cells]
    done: list[int] = []
    server = CellServer(task["limits"])
    for index, cell in enumerate(cells):
        reply, how = server.request({"op": "run", "code": cell["source"]}, float(task["seconds"]))
        if how == "ok":
            error = reply.get("error") if isinstance(reply, dict) else None
            outcomes[index] = {"status": "error" if error else "ok", "error": error}
            if not error:
                done.append(index)
            continue
        outcomes[index] = {"status": "time limit" if how == "interrupted" else "killed"}
        if how == "killed":
            server, failed = _restart(server, task, [cells[i]["source"] for i in done])
            for position in failed:
                outcomes[done[position]] = {"status": "lost on replay"}
            done = [i for position, i in enumerate(done) if position not in failed]
    return server, outcomes


def run_task(task: dict) -> dict:
    """Run the task's cells and read its questions' values (see the module's docstring)."""
    server, cells = _run_cells(task)
    questions: dict[str, dict] = {}
    limit = float(task["seconds"])
    for question in task["questions"]:
        request = {"op": "capture", "names": question["names"], "probes": question["probes"]}
        reply, how = server.request(request, limit)
        entry: dict[str, Any] = {"values": {}, "calls": {}, "problem": None}
        if how == "ok" and isinstance(reply, dict) and "values" in reply:
            entry.update(values=reply["values"], calls=reply["calls"])
        elif how == "ok" and isinstance(reply, dict) and reply.get("error"):
            entry["problem"] = "your answer could not be read: " + ": ".join(reply["error"])
        else:
            entry["problem"] = (
                f"your answer was still running {limit:g} s after the grader called it"
            )
            if how == "killed":
                ran = [c["source"] for c, o in zip(task["cells"], cells) if o["status"] == "ok"]
                server, _ = _restart(server, task, ran)
        questions[question["label"]] = entry
    server.kill()
    import resource

    usage = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    cpu = sum(u.ru_utime + u.ru_stime for u in usage)
    return {"cells": cells, "questions": questions, "cpu": cpu}


def main(argv: list[str]) -> None:
    if argv[:1] == ["--serve"]:
        _serve(int(argv[1]))
        return
    global OWN_PID_NAMESPACE
    with open(argv[0]) as handle:
        task = json.load(handle)
    OWN_PID_NAMESPACE = bool(task.get("own_pid_namespace")) and os.getpid() <= 3
    _set_limits(task.get("rlimits", {}), OWN_PID_NAMESPACE)
    out = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    result = run_task(task)
    out.write(json.dumps(result) + "\n")
    out.flush()


if __name__ == "__main__":
    main(sys.argv[1:])

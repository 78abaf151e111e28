"""The grading sandbox: :func:`sandbox_command` wraps :mod:`.runner` in bubblewrap (what it
sees and what it may do: ``book/teaching.md``, "What the grader protects"). Started as root,
the runner keeps two capabilities just long enough to become ``nobody``; otherwise bubblewrap
makes an unprivileged user namespace. :func:`check_sandbox` tries it once before grading.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from dadp_book.errors import BuildError

__all__ = ["JOB", "UNPROTECTED", "bound_paths", "check_outside", "check_sandbox", "sandbox_command"]

#: Where the job folder appears inside the sandbox.
JOB = "/job"
#: What ``--no-sandbox`` leaves unprotected (printed when it is used).
UNPROTECTED = (
    "grading WITHOUT a sandbox: the students' code runs as this user with its rights "
    "(it can read and change any file this user can: the kit and its hidden tests, other "
    "submissions, the scores), can use the network, and background processes it starts "
    "are killed only if they stay in its process group. Scores are still computed outside "
    "the notebook (patched builtins or check helpers change nothing), and limits on "
    "memory, file size and time still apply."
)
_ETC = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/alternatives",
    "/etc/fonts",
    "/etc/matplotlibrc",
)
#: Size of the sandbox's private /tmp (bytes).
TMP_BYTES = 512 * 2**20


def _python_dirs() -> list[Path]:
    """The Python installation: prefixes and site-packages folders outside ``/usr``."""
    found = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)}
    found.add(Path(os.path.realpath(sys.executable)).parent.parent)
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        found.add(Path(sysconfig.get_paths()[key]))
    for entry in sys.path:
        if entry.endswith(("site-packages", "dist-packages")) and Path(entry).is_dir():
            found.add(Path(entry))
    resolved = sorted({Path(os.path.realpath(p)) for p in found} | found)
    keep: list[Path] = []
    for path in resolved:
        if path.is_dir() and not any(path.is_relative_to(k) for k in keep):
            if not path.is_relative_to("/usr"):
                keep.append(path)
    return keep


def bound_paths() -> list[Path]:
    """Every host folder the sandbox shows (read-only), besides the job folder."""
    return [Path("/usr"), *_python_dirs()]


def check_outside(paths: dict[str, Path]) -> None:
    """Refuse a kit, submissions or output folder that the sandbox would show."""
    for what, path in paths.items():
        real = Path(os.path.realpath(path))
        for bound in bound_paths():
            if real.is_relative_to(bound):
                raise BuildError(
                    f"{what} {path} is inside {bound}, which the grading sandbox shows to "
                    "the students' code: move it elsewhere"
                )


def _ancestors(path: Path) -> list[str]:
    return [str(p) for p in reversed(path.parents) if str(p) != "/"]


def sandbox_command(job: Path) -> list[str]:
    """The ``bwrap`` command that runs the runner on ``job`` (see the module's docstring)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise BuildError("bubblewrap (bwrap) is not installed")
    args = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net"]
    args += ["--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "grading"]
    if os.geteuid() == 0:  # the runner becomes nobody at once (sandbox.runner)
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user", "--disable-userns"]
    args += ["--ro-bind", "/usr", "/usr"]
    for name in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(name):
            args += ["--symlink", os.readlink(name), name]
        elif os.path.isdir(name):
            args += ["--ro-bind", name, name]
    for name in _ETC:
        args += ["--ro-bind-try", name, name]
    args += ["--dev", "/dev", "--proc", "/proc"]
    # the private /tmp first: a Python installed under /tmp (a checkout there) is bound on
    # top of it, not hidden by it
    args += ["--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    made: set[str] = {"/tmp"}
    for folder in _python_dirs():
        for ancestor in _ancestors(folder):
            if ancestor not in made:
                args += ["--perms", "0755", "--dir", ancestor]
                made.add(ancestor)
        args += ["--ro-bind", str(folder), str(folder)]
    args += ["--ro-bind", str(job), JOB, "--chdir", "/tmp", "--clearenv"]
    env = {
        "HOME": "/tmp",
        "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp/.matplotlib",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }
    keep = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")  # see the machine's notes
    env |= {key: os.environ[key] for key in keep if key in os.environ}
    for key, value in env.items():
        args += ["--setenv", key, value]
    return [*args, "--", sys.executable, f"{JOB}/runner.py", f"{JOB}/task.json"]


def check_sandbox() -> str | None:
    """None if the sandbox works here; otherwise why not (one line)."""
    if shutil.which("bwrap") is None:
        return (
            "bubblewrap is not installed (Debian/Ubuntu: 'apt-get install bubblewrap'; "
            "Fedora: 'dnf install bubblewrap')"
        )
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dadp-sandbox-check-") as folder:
        job = Path(folder) / "job"
        job.mkdir()
        secret = Path(folder) / "secret"
        secret.write_text("")
        (job / "runner.py").write_text(
            "import os, socket, sys\n"
            f"assert not os.path.exists({str(secret)!r}), 'host files visible'\n"
            "try:\n"
            "    socket.create_connection(('1.1.1.1', 53), timeout=1)\n"
            "    sys.exit('network reachable')\n"
            "except OSError:\n"
            "    pass\n"
            "import IPython, numpy, psutil\n"
            "print('sandbox ok')\n"
        )
        (job / "task.json").write_text("{}")
        job.chmod(0o755)
        for child in job.iterdir():
            child.chmod(0o644)
        try:
            done = subprocess.run(sandbox_command(job), capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"bubblewrap could not start a sandbox: {error}"
    if done.returncode != 0 or "sandbox ok" not in done.stdout:
        detail = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return f"bubblewrap could not start a sandbox here: {detail}"
    return None

"""tools/offline.sh, which `make test` and `make pdf` put around nbval, the builds and the browser
checks: inside it no host is reachable, loopback works (Jupyter kernels talk over local ZMQ), and
where it cannot take the network away it says so, and fails under OFFLINE=require."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OFFLINE = ROOT / "tools" / "offline.sh"

PROBE = """
import socket
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen()
socket.create_connection(listener.getsockname(), timeout=5).close()
print("loopback ok")
try:
    socket.create_connection(("192.0.2.1", 80), timeout=3)  # TEST-NET-1: never a real host
    print("network reachable")
except OSError as exc:
    print("network unreachable:", exc.__class__.__name__)
try:
    socket.getaddrinfo("pypi.org", 443)
    print("dns ok")
except OSError:
    print("dns fails")
"""


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(OFFLINE), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


def permitted() -> bool:
    result = run("true", env={"OFFLINE": "require"})
    return result.returncode == 0


def test_usage() -> None:
    result = run()
    assert result.returncode == 2 and "usage" in result.stderr


@pytest.mark.skipif(
    not permitted(), reason="unshare --net is not permitted on this machine"
)
def test_no_network_but_loopback() -> None:
    result = run(sys.executable, "-c", PROBE, env={"OFFLINE": "require"})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "loopback ok"
    assert lines[1].startswith("network unreachable")
    assert lines[2] == "dns fails"


@pytest.mark.skipif(
    not permitted(), reason="unshare --net is not permitted on this machine"
)
def test_exit_status_and_arguments_pass_through() -> None:
    result = run("sh", "-c", 'printf "%s|" "$@"; exit 3', "sh", "a b", "c")
    assert result.returncode == 3
    assert result.stdout == "a b|c|"


def test_degrades_with_a_message_where_not_permitted(tmp_path: Path) -> None:
    # a PATH without unshare: the wrapper cannot isolate, says so, and runs the command anyway...
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("id", "echo"):
        (bin_dir / tool).symlink_to(shutil.which(tool))
    env = {"PATH": str(bin_dir)}
    result = subprocess.run(
        ["/bin/sh", str(OFFLINE), "echo", "ran"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout == "ran\n"
    assert (
        "cannot take the network away" in result.stderr
        and "NOT enforced" in result.stderr
    )
    # ... unless OFFLINE=require
    result = subprocess.run(
        ["/bin/sh", str(OFFLINE), "echo", "ran"],
        capture_output=True,
        text=True,
        env={**env, "OFFLINE": "require"},
        timeout=60,
    )
    assert result.returncode == 1 and result.stdout == ""
    assert "OFFLINE=require" in result.stderr

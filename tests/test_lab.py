"""`make lab` starts JupyterLab on 127.0.0.1 at the repository root, offering only the project's kernel.

The test runs ``make lab`` itself (``-o .venv/.installed``: never rebuild the venv here) on a
free port with a known token, asks the Jupyter REST API for the kernel specs and the root
folder's contents, and stops only the process group it started (make and the server under
it). No browser needed.
"""
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def lab(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    port, token = free_port(), secrets.token_hex(16)
    log = open(tmp_path / "lab.log", "wb")
    server = subprocess.Popen(["make", "--no-print-directory", "-o", ".venv/.installed", "lab",
                               f"LAB_PORT={port}", f"LAB_TOKEN={token}"],
                              cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield f"http://127.0.0.1:{port}", token, server, tmp_path / "lab.log"
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(5)
        log.close()


def get_json(url: str, deadline: float, server, log: Path):
    while True:
        if server.poll() is not None:
            pytest.fail(f"make lab exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return json.load(reply)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            if time.monotonic() > deadline:
                pytest.fail(f"no answer from {url.split('?')[0]} within the time limit:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)


def test_make_lab_serves_only_the_pearl_kernel_on_localhost_at_the_root(lab):
    base, token, server, log = lab
    specs = get_json(f"{base}/api/kernelspecs?token={token}", time.monotonic() + 120, server, log)
    # the venv's own "python3" kernel (and the system's) cannot import the project: not offered
    assert sorted(specs["kernelspecs"]) == ["pearl"], f"kernels listed: {sorted(specs['kernelspecs'])}"
    assert specs["kernelspecs"]["pearl"]["spec"]["display_name"] == "PEARL companion"
    assert specs["default"] == "pearl"
    root = get_json(f"{base}/api/contents?token={token}", time.monotonic() + 30, server, log)
    names = {item["name"] for item in root["content"]}
    assert {"notebooks", "results", "figures", "README.md"} <= names, f"root folder holds {sorted(names)}"
    text = log.read_text()
    assert f"http://127.0.0.1:{port_of(base)}/lab" in text, "make lab prints its URL"
    with pytest.raises(urllib.error.HTTPError):  # the token is required
        urllib.request.urlopen(f"{base}/api/kernelspecs", timeout=5)


def port_of(base: str) -> str:
    return base.rsplit(":", 1)[1]

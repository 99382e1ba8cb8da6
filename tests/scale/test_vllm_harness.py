"""The vLLM test harness itself, with stand-in server programs (no vLLM needed).

It must report a server that exits or never gets ready with its log, and stop the server's
whole process group whatever happens, including when the test body fails.
"""

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.vllm_server import VLLM_PYTHON_ENV, VLLMServerError, vllm_python, vllm_server

# Answers /health and /v1/models like vLLM's API server; spawns a child like its engine core
# and, like vLLM, stops that child when it gets SIGTERM.
STAND_IN = """\
import argparse, http.server, json, os, signal, subprocess, sys
parser = argparse.ArgumentParser()
parser.add_argument("-m")
parser.add_argument("--port", type=int)
parser.add_argument("--served-model-name")
args, _ = parser.parse_known_args()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("pids", os.getpid(), child.pid, flush=True)

def on_term(signum, frame):
    child.terminate()
    sys.exit(0)

signal.signal(signal.SIGTERM, on_term)

class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"data": [{"id": args.served_model_name}]}).encode()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass

http.server.HTTPServer(("127.0.0.1", args.port), H).serve_forever()
"""


def fake_python(tmp_path: Path, body: str) -> str:
    script = tmp_path / "python"
    script.write_text(f"#!/bin/sh\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.fixture
def model_dir(tmp_path) -> Path:
    d = tmp_path / "model"
    d.mkdir()
    (d / "config.json").write_text('{"hidden_size": 64, "num_attention_heads": 2}')
    return d


def pids_in(log: Path) -> list[int]:
    for line in log.read_text().splitlines():
        if line.startswith("pids "):
            return [int(p) for p in line.split()[1:]]
    raise AssertionError(f"no pids in {log.read_text()!r}")


def gone(pid: int, wait: float = 10.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:  # reap it if it is our own zombie child
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.1)
    return False


def test_server_and_its_children_are_stopped_when_the_test_body_fails(tmp_path, model_dir):
    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    python = fake_python(tmp_path, f'exec {sys.executable} {stand_in} "$@"')
    log = tmp_path / "server.log"
    with pytest.raises(RuntimeError, match="test body failed"):
        with vllm_server(model_dir, "tiny", log, python=python, ready_timeout=30) as url:
            assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
            raise RuntimeError("test body failed")
    assert all(gone(pid) for pid in pids_in(log))


def test_a_server_that_exits_is_reported_with_its_log(tmp_path, model_dir):
    python = fake_python(tmp_path, "echo 'RuntimeError: engine core failed to start'; exit 3")
    with pytest.raises(VLLMServerError, match="exited with code 3") as e:
        with vllm_server(model_dir, "tiny", tmp_path / "server.log", python=python):
            pass
    assert "engine core failed to start" in str(e.value)


def test_a_server_that_never_gets_ready_times_out_and_is_stopped(tmp_path, model_dir):
    python = fake_python(tmp_path, 'echo "pids $$"; exec sleep 600')
    log = tmp_path / "server.log"
    with pytest.raises(VLLMServerError, match="not ready after 2s"):
        with vllm_server(model_dir, "tiny", log, python=python, ready_timeout=2):
            pass
    assert gone(pids_in(log)[0])


def test_small_head_dim_is_refused_before_starting(tmp_path, model_dir):
    (model_dir / "config.json").write_text('{"head_dim": 16}')
    with pytest.raises(VLLMServerError, match="head_dim 16 < 32"):
        with vllm_server(model_dir, "tiny", tmp_path / "log", python="/nonexistent"):
            pass


def test_missing_or_broken_vllm_environment_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.delenv(VLLM_PYTHON_ENV, raising=False)
    with pytest.raises(VLLMServerError, match=f"{VLLM_PYTHON_ENV} is not set"):
        vllm_python()
    monkeypatch.setenv(VLLM_PYTHON_ENV, sys.executable)  # this venv has no vllm
    with pytest.raises(VLLMServerError, match="cannot import vllm") as e:
        vllm_python()
    assert "No module named 'vllm'" in str(e.value)


def test_server_dies_with_a_killed_test_process(tmp_path, model_dir):
    import signal
    import subprocess

    stand_in = tmp_path / "stand_in.py"
    stand_in.write_text(STAND_IN)
    python = fake_python(tmp_path, f'exec {sys.executable} {stand_in} "$@"')
    log = tmp_path / "server.log"
    # A test process that starts the server and then is SIGKILLed (no finally runs).
    runner = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from tests.helpers.vllm_server import vllm_server\n"
            f"with vllm_server(Path({str(model_dir)!r}), 'tiny', Path({str(log)!r}), "
            f"python={python!r}, ready_timeout=30):\n"
            "    print('ready', flush=True); time.sleep(600)",
        ],
        cwd=Path(__file__).parents[2],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert runner.stdout is not None and runner.stdout.readline().strip() == "ready"
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=10)
    assert all(gone(pid) for pid in pids_in(log))

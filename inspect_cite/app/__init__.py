"""The ``inspect-cite`` command and what only it uses: ``check``, ``report``, ``calibrate``.

The app reads logs and judges human-labelled pairs on top of the core; nothing in the core, the
solvers or the scorers imports it. Its commands: :mod:`inspect_cite.app.cli`.
"""

"""Checks before a run: every model, file, role and option it needs, refused in one line each.

- :mod:`inspect_cite.checks.models`: model folders and hub ids;
- :mod:`inspect_cite.checks.network`: whether a host answers;
- :mod:`inspect_cite.checks.run`: the eval building the task (model, roles, generate config);
- :mod:`inspect_cite.checks.once`: a check that passed is remembered for the process;
- :mod:`inspect_cite.checks.errors`: the refusal types (one line, every ``--display``);
- :mod:`inspect_cite.checks.record_check`: a user's data records, field by field.
"""

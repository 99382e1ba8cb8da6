"""Tiny random models built at test and benchmark time (no hub): stand-ins for tests and bench.

Nothing here runs in a user's eval; it ships so that ``bench/`` runs from an installed copy.
"""

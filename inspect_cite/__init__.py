"""Shared core of inspect-cite: text handling, documents, caching and downloads.

Solvers and scorers both import from here; neither imports the other.
"""

__version__ = "0.1.0"

"""Pinned downloads: hub and GitHub files at a commit, checksums, the cache, one HTTP policy."""

"""The benchmark registry and the data files more than one family or command reads.

One table per family of its datasets, read by tasks, scorers and commands.
"""

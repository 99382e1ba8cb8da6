"""The ``--threads`` option every CPU benchmark takes, and applying it to torch."""

import argparse


def parse_with_threads(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Add ``--threads`` to a benchmark's options, parse them and set torch's thread count.

    Runs on a shared machine differ in the threads torch picks by default; a fixed count
    makes a benchmark's ratios comparable across runs.
    """
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    args = parser.parse_args()
    if args.threads:
        # Imported here: a benchmark's --help needs no torch.
        import torch

        torch.set_num_threads(args.threads)
    return args

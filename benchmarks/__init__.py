"""The benchmark suite behind ``make bench``: ``python benchmarks/run.py --help``."""

"""Benchmarks of the rules engine against RLCard and OpenSpiel (see benchmarks/README.md)."""

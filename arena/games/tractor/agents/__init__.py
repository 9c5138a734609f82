"""Tractor's own agents: the base a Python bot subclasses, and the scripted players."""

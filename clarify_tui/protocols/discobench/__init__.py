"""The discobench protocol: its rules, metrics, tasks and helpers (../README.md)."""

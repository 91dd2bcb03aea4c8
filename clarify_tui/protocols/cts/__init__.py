"""The cts protocol: its rules, metrics, tasks and helpers (../README.md)."""

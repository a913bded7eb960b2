"""Tandem's tests: a package so that tests, benches and the processes they start import shared code
as `tests.helpers.*` (pytest puts the repository root on `sys.path`: `pythonpath` in pyproject.toml;
a bench or child process runs as `python -m tests.…` from the repository root)."""

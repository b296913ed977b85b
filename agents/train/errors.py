"""The error every training setting check raises (a module of its own, so that the config
and the run-folder code both raise it without importing each other)."""

from __future__ import annotations


class ConfigError(ValueError):
    """A training config key or value that is not allowed."""

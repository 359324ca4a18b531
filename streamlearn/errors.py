"""The errors a user can fix: a bad config, missing or bad data. The CLI prints them
without a traceback and exits with the error's code."""

from __future__ import annotations


class UserError(Exception):
    """A mistake the user can fix (bad config, missing data, bad file).

    The CLI prints it without a traceback and exits with a non-zero code.
    """

    exit_code: int = 2


class ConfigError(UserError):
    """The config file is invalid."""

    @classmethod
    def at(cls, path: str, message: str) -> ConfigError:
        """The error for the config key at ``path`` (e.g. ``algorithms[0].params``)."""
        return cls(f"Config error at '{path}': {message}")


class DataError(UserError):
    """A data file is missing, corrupt or malformed."""

    exit_code = 3


class DataMissingError(DataError):
    """A data file is not there at all (``--skip-missing-data`` skips only this; a file
    that is there but corrupt, truncated or not a file stops the experiment)."""

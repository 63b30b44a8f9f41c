"""The one exception type the harness raises for bad input (exit code 2 in the CLI)."""


class HarnessError(Exception):
    """Bad input to the harness: missing spec, unknown entry, refused translation, ...

    The message is meant for users and is printed without a traceback.
    """

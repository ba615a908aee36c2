"""One exception type whose message is a single sentence for the user."""


class LabError(Exception):
    """A problem the user can fix (bad profile, unsafe target, fio missing...).

    The message is one sentence naming the problem and, where possible, the fix.
    Command-line entry points print it without a traceback and exit 2.
    """

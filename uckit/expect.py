"""(being written)"""


def register(sub):
    """Adds this module's verbs to the command line (uckit.cli)."""

"""python3 -m uckit VERB ...: see uckit.cli."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))

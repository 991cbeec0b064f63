"""``python -m tbdb.cli ARGS``: the ``tbdb`` command."""
import sys

from tbdb.cli import main

sys.exit(main())

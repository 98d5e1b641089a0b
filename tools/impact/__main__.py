"""`PYTHONPATH=tools python3 -m impact COMMAND DATA -o DIR`: the impact lab's command line
(impact/cli.py; `python3 -m impact --help`)."""
import sys

from .cli import main

sys.exit(main())

"""`uv run python -m examples.agent --task NAME`: the example agent (cli.py)."""

import sys

from examples.agent.cli import main

sys.exit(main())

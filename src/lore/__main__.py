"""`python -m lore` runs the command line."""

from lore.cli.main import main

raise SystemExit(main())

"""`python -m anchorgate` is the CLI."""

from anchorgate.cli import main

main()

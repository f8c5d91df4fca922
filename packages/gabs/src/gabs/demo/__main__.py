"""``python -m gabs.demo``: the same as ``gabs demo``."""

from gabs.demo._runner import main

main()

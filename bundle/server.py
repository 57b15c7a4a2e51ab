"""The bundle's entry point: the reckoner command its pyproject pins."""

import sys

from reckoner.cli import main

main(sys.argv[1:])

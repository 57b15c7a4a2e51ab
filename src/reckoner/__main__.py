"""`python -m reckoner` runs the command line."""

from reckoner.cli import main

if __name__ == "__main__":
    main()

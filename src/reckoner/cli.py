"""The `reckoner` command line."""


def main() -> None:
    raise SystemExit("reckoner: not built yet")

"""The options several commands share: the home, the lane, a port, compute's settings."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `reckoner pitfalls hook` must start fast
if TYPE_CHECKING:
    import argparse


def port_number(text: str) -> int:
    """A TCP port for argparse: 0 (pick a free one) to 65535."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port; give a number from 1 to 65535, or 0 for a free one"
        )
    return port


def add_home(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="the engine's home directory (default: $RECKONER_HOME, else ~/.reckoner)",
    )


def add_compute_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="compute's project root, where Computation/ is kept (default: the working directory)",
    )
    parser.add_argument(
        "--compute-mode", choices=("off", "auto", "on"), help="compute's mode (default: auto)"
    )
    parser.add_argument(
        "--compute-engines",
        metavar="LIST",
        help="comma-separated engines compute may use, in probe order",
    )
    parser.add_argument(
        "--compute-timeout-ms", type=int, metavar="MS", help="a run's time limit (default 60000)"
    )
    parser.add_argument(
        "--compute-network",
        choices=("on", "off"),
        help="off runs engines without network where the machine can enforce it",
    )


def add_lane(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lane",
        metavar="N",
        help=(
            "the lane (1-64) whose open record this engine holds (default: $RECKONER_LANE, "
            "else the lowest lane with an open record nobody holds, else the lowest free lane)"
        ),
    )

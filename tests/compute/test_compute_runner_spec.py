"""Issue 24: compute's runner hands one RunSpec to the process owner and adds only the
engines' own variables to the names the spec allows."""

from __future__ import annotations

import json
import sys

from reckoner.compute import runner

PRINT_ENVIRONMENT = "import json, os; print(json.dumps(dict(os.environ)))"


def test_an_engine_run_gets_the_engine_variables_and_the_names_the_spec_adds() -> None:
    """R_LIBS_USER (an engine's variable) and the spec's own name pass; anything else stays out."""
    source = {
        "PATH": "/usr/bin:/bin",
        "R_LIBS_USER": "/r",
        "MY_DATA": "d",
        "PGPASSWORD": "p",
    }
    spec = runner.RunSpec(cwd="/", timeout_ms=60_000, env=source, names=("MY_DATA",))
    done = runner.run([sys.executable, "-I", "-c", PRINT_ENVIRONMENT], spec)
    assert done.exit == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["R_LIBS_USER"] == "/r" and seen["MY_DATA"] == "d"
    assert "PGPASSWORD" not in seen
    assert spec.names == ("MY_DATA",)  # the caller's spec is left as it was

"""Article jobs of a running panel, driven over HTTP as the page drives them: start one,
poll it to a phase or to its end."""

from __future__ import annotations

import time
from typing import Any

import httpx
from article_helpers import HAND_ID

API = "/api/reckoner"


def wait_for(http: httpx.Client, job_id: str, until: str = "end") -> dict[str, Any]:
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        job: dict[str, Any] = http.get(f"{API}/generate-progress", params={"jobId": job_id}).json()
        if until == "end" and job["status"] != "running":
            return job
        if until != "end" and job["phase"] == until:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not reach {until}")


def generate(http: httpx.Client, **body: Any) -> dict[str, Any]:
    response = http.post(f"{API}/generate", json={"recordId": HAND_ID, **body})
    assert response.status_code == 202, response.text
    return wait_for(http, response.json()["jobId"])

"""Which writer a job uses: the template by default, a model writer when one is chosen."""

from __future__ import annotations

from reckoner.articles.facts import ArticleRefusal
from reckoner.articles.jobs import JobRequest
from reckoner.articles.writers.base import WRITERS, Writer
from reckoner.articles.writers.template import TemplateWriter


def writer_for(request: JobRequest) -> Writer:
    if request.writer == "template":
        return TemplateWriter()
    raise ArticleRefusal(
        f"The writer {request.writer!r} is not one of {', '.join(WRITERS)}; pick one of those."
    )

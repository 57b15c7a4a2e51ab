"""Which writer a job uses: the template by default, a model writer when one is chosen."""

from __future__ import annotations

from reckoner.articles.facts import ArticleRefusal
from reckoner.articles.jobs import JobRequest
from reckoner.articles.writers.base import WRITERS, Writer
from reckoner.articles.writers.model import ModelWriter
from reckoner.articles.writers.template import TemplateWriter
from reckoner.providers.chat import DEFAULT_MODELS, PROVIDERS, ChatProvider


def writer_for(request: JobRequest) -> Writer:
    if request.writer == "template":
        return TemplateWriter()
    if request.writer in PROVIDERS:
        provider = ChatProvider(
            kind=request.writer,
            model=request.model or DEFAULT_MODELS[request.writer],
            base_url=request.base_url,
        )
        return ModelWriter(provider)
    raise ArticleRefusal(
        f"The writer {request.writer!r} is not one of {', '.join(WRITERS)}; pick one of those."
    )

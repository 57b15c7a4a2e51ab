"""Which writer a job uses: the template by default, a model writer when one is chosen."""

from __future__ import annotations

import os

from reckoner.articles.fact_model import ArticleRefusal
from reckoner.articles.jobs import JobRequest
from reckoner.articles.writers.base import WRITERS, Writer
from reckoner.articles.writers.model import ModelWriter
from reckoner.articles.writers.template import TemplateWriter
from reckoner.providers.chat import ChatProvider
from reckoner.providers.config import PROVIDERS, model_for


def writer_for(request: JobRequest) -> Writer:
    if request.writer == "template":
        return TemplateWriter()
    for kind in PROVIDERS:
        if request.writer == kind:
            provider = ChatProvider(
                kind=kind,
                model=model_for(kind, "article", os.environ, request.model),
                typed_url=request.base_url,
                typed_key=request.api_key,
                configured=tuple(url for url in (request.configured_base_url,) if url),
            )
            return ModelWriter(provider)
    raise ArticleRefusal(
        f"The writer {request.writer!r} is not one of {', '.join(WRITERS)}; pick one of those."
    )

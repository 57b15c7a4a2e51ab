"""The article writers, one module each behind ``Writer`` (``base``): the deterministic
``template`` and the ``model`` writer that asks a provider."""

"""The local web panel over a home's records (manual 11, issue 5): ``create_app`` and
``run_panel`` in ``app``, ``BackgroundPanel`` for serving it from a thread."""

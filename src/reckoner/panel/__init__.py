"""The local web panel over a home's records (docs/guide/panel.md, issue 5): ``create_app`` in
``app``,
``run_panel`` in ``run``, ``BackgroundPanel`` for serving it from a thread."""

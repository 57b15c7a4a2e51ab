"""Articles (docs/guide/articles.md, issue 10): a closed record written up as a Markdown or LaTeX
solution,
with every number it shows audited against the record.

Pure parts (no I/O): ``facts``, ``numbers``, ``markup``, ``mathtex``, ``audit``, ``latex``,
``settings`` and the ``template`` writer. One module per outside thing: ``files`` (the output
directory), ``compiler`` (the TeX programs), ``reveal`` (the system opener); model providers
live in ``reckoner.providers``. ``jobs`` runs the phases.
"""

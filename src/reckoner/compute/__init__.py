"""The compute tool: runs real engines (Python, R, Octave, Julia, ...) and archives receipts.

``service`` answers the tool (checks, dispatch, refusal to receipt, the record row) over one
``context``; ``probe`` knows the engines (found, versioned, licensed, once per server) and
answers probe; ``run`` checks a run's request and ``execute`` runs and archives it;
``receipt`` re-checks an archived run; ``installer`` shows and executes install plans,
which ``install`` builds; ``refusals`` holds every refusal sentence and ``next``. Below
them: ``vocabulary`` the next kinds, reasons and warning codes (the codes are
``reckoner.contract.codes.MathCode``), ``settings`` the options, ``engines`` one descriptor
per engine, ``discovery`` finds and probes them, ``runner`` is the only module starting
processes, ``archive`` the only one writing ``<project>/Computation/``, ``identity`` asks
what a run really starts (in the run's cwd), and ``provenance`` pins outputs and cli inputs
by hash.
"""

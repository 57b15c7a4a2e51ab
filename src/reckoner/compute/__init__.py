"""The compute tool: runs real engines (Python, R, Octave, Julia, ...) and archives receipts.

``vocabulary`` holds the codes, ``settings`` the options, ``engines`` one descriptor per
engine, ``discovery`` finds and probes them, ``runner`` is the only module starting
processes, ``archive`` the only one writing ``<project>/Computation/``, ``identity`` asks
what a run really starts (in the run's cwd), ``provenance`` pins outputs and cli inputs by
hash, ``install`` builds install plans, and ``service`` answers the tool.
"""

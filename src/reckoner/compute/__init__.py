"""The compute tool: runs real engines (Python, R, Octave, Julia, ...) and archives receipts.

``vocabulary`` holds the codes, ``settings`` the options, ``engines`` one descriptor per
engine, ``discovery`` finds and probes them, ``runner`` is the only module starting
processes, ``archive`` the only one writing ``<project>/Computation/``, ``install`` builds
install plans, and ``service`` answers the tool.
"""

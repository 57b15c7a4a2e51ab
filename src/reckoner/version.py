"""The package's version, in a module of its own: the build reads it from here, and a part
that must stamp what it writes (the pitfalls search cache) imports it without the package's
other names."""

__version__ = "0.1.0"

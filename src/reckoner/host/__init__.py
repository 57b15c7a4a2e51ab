"""The owners of the machine's external things that the features share.

Each module here is the one place its thing is touched: ``processes`` starts, bounds and
kills every child process; ``files`` opens and writes every file a feature owns (pitfall
cards, compute archives, article outputs); ``network`` binds the listening sockets of the MCP
HTTP server and the panel, judges loopback and holds their shutdown grace; ``calls`` is a
tool call's cancellation and progress; ``extras`` says which extra a missing package belongs
to. The features call them; nothing else of the package reaches ``subprocess``, binds a
socket or writes into a feature's folder by hand.
"""

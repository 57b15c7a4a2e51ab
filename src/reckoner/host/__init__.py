"""The owners of the machine's external things that the features share.

Each module here is the one place its thing is touched: ``processes`` starts, bounds and
kills every child process; ``files`` opens and writes every file a feature owns (pitfall
cards, compute archives, article outputs). The features call them; nothing else of the
package reaches ``subprocess`` or writes into a feature's folder by hand.
"""

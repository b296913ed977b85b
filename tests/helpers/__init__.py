"""Helpers shared by the tests of several folders: decks and play drivers, hand-built
observations, the plain GAE reference, interruptible subprocesses and the project's paths."""

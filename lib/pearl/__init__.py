"""PEARL companion library: data, encoding, phrase benchmark, training data, training, figures.

Importing this package does no work (no file reads, no seeding, no device placement);
import the submodules you need, e.g. ``from pearl.models import load_model`` and ``from pearl.encode import encode``.
"""
__version__ = "0.1.0"

"""The version of the gabs package."""

__version__ = "0.1.0"

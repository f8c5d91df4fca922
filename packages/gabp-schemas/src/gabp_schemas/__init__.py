"""GABP schemas."""

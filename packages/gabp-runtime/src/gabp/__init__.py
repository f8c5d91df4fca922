"""GABP runtime."""

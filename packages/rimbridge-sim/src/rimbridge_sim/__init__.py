"""rimbridge-sim."""

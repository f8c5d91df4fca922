"""Settings shared by every test in the workspace."""

from hypothesis import settings

# Property tests check behaviour, not speed: a loaded machine (two cores, parallel workers)
# must not turn a slow example into a failure. Speed is measured by the benchmarks.
settings.register_profile("workspace", deadline=None)
settings.load_profile("workspace")

"""Experiments: ``gabs`` with one part swapped, to measure a fix before anyone writes it.

Runs the installed ``gabs`` command line with, in this process only:

* ``--http-json``: the SDK's Streamable HTTP app built with ``json_response=True``: a POST is
  answered with one JSON body instead of an SSE stream (hot spot 5; progress notifications of
  a request are then not streamed).

Side by side with the stock bridge (``V=benchmarks/gabs_variant.py``)::

    uv run python benchmarks/bench_e2e.py --compare-name variant \\
        --compare-stdio "{python} $V serve --config-dir {config_dir}" \\
        --compare-http "{python} $V --http-json serve --transport http --host 127.0.0.1 \\
            --port {port} --config-dir {config_dir}"

(The ``--stdio-pipes`` experiment that was here is now gabs' own stdio transport,
``gabs.transports.stdio``.) Not part of gabs and not a supported way to run it.
"""

from __future__ import annotations

import sys
from typing import Any


def json_responses() -> None:
    """Make the SDK's Streamable HTTP app answer POSTs with JSON bodies."""
    from mcp.server.lowlevel.server import Server

    original = Server.streamable_http_app

    def with_json(self: Server[Any], **options: Any) -> Any:
        return original(self, **{**options, "json_response": True})

    Server.streamable_http_app = with_json  # type: ignore[method-assign]


VARIANTS = {"--http-json": json_responses}


if __name__ == "__main__":
    arguments = sys.argv[1:]
    while arguments and arguments[0] in VARIANTS:
        VARIANTS[arguments.pop(0)]()
    from gabs.cli import main

    sys.argv[0] = "gabs"
    main(arguments)

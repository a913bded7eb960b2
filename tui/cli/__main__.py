"""`python -m tandem.tui.cli`: the `tandem` command."""

from __future__ import annotations

import sys

from tandem.tui.cli.entry import main

sys.exit(main())

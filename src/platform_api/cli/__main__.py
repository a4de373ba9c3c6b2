"""`python -m platform_api.cli`: the `platform-api` command."""

import sys

from platform_api.cli import main

sys.exit(main())

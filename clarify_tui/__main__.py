import sys

from clarify_tui.cli import main

sys.exit(main())

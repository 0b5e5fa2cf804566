"""``python -m tangent_ad``: the same program as the ``tangent-ad`` command."""

import sys

from tangent_ad.cli import main

if __name__ == "__main__":
    sys.exit(main())

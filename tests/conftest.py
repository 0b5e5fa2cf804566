"""Shared fixtures: a seeded random generator per test. The compiled
derivatives of a test run are cached in a directory of their own
(``compiled/disk_cache.py``), not in the user's ~/.cache."""
import os
import tempfile

import numpy as np
import pytest

os.environ.setdefault("TANGENT_AD_CACHE", tempfile.mkdtemp(prefix="tangent_ad_test_cache_"))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)

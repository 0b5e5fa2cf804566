# Sourced by scripts/demo and scripts/test (from the repository root):
# make sure .venv exists and holds this package installed in editable mode.
#
# The install is skipped when .venv/.installed-<hash> exists, where <hash>
# covers setup.cfg and pyproject.toml: reruns are fast, and a change to the
# dependencies triggers a fresh install.

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    echo "creating .venv with $python" >&2
    "$python" -m venv .venv
fi
stamp_hash=$(cat setup.cfg pyproject.toml | .venv/bin/python -c \
    'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest()[:16])')
stamp=".venv/.installed-$stamp_hash"
if [ ! -e "$stamp" ]; then
    echo "installing tangent_ad into .venv (pip install -e '.[test]')" >&2
    .venv/bin/pip install -q -e '.[test]'
    rm -f .venv/.installed-*
    touch "$stamp"
fi

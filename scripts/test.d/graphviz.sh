#!/usr/bin/env bash
# Installs Graphviz so the apply golden tests can check that `dot` accepts
# the --graph files. Without it they fall back to a structural check.
set -uo pipefail
if command -v dot >/dev/null; then
	echo "graphviz: $(dot -V 2>&1)"
	exit 0
fi
apt-get install -y -q graphviz >/dev/null 2>&1 || echo "graphviz: not installable; --graph files are checked structurally"

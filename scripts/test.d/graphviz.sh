#!/usr/bin/env bash
# Installs Graphviz, which the apply golden tests need to check that `dot`
# renders the --graph files (see docs/development.md: scripts/test provides
# every test dependency, and a missing one fails the run).
set -uo pipefail
if command -v dot >/dev/null; then
	echo "graphviz: $(dot -V 2>&1)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-graphviz-install.XXXXXX.log)
echo "graphviz: not installed; installing Debian's graphviz (log: $log)"
if ! apt-get install -y -q graphviz >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q graphviz; } >>"$log" 2>&1; then
		echo "graphviz: apt-get install graphviz failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "graphviz: installed $(dot -V 2>&1)"

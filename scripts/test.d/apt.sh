#!/usr/bin/env bash
# Makes sure apt knows Debian's hello package, which the package tests
# install and remove for real: a machine whose package lists were never
# downloaded (or were cleaned) gets them with apt-get update.
set -uo pipefail
if ! command -v apt-get >/dev/null; then
	echo "apt: no apt-get on this machine; the package tests need a Debian host" >&2
	exit 1
fi
# (grep reads a variable, not a pipe: with pipefail, grep -q closing the
# pipe early would fail the pipeline.)
candidate() { local p; p=$(apt-cache policy hello 2>/dev/null); grep -q 'Candidate: [0-9]' <<<"$p"; }
if candidate; then
	echo "apt: package lists present"
	exit 0
fi
log=$(mktemp /tmp/almanac-apt-update.XXXXXX.log)
echo "apt: no candidate for hello; running apt-get update (log: $log)"
if ! apt-get update -q >"$log" 2>&1 || ! candidate; then
	echo "apt: apt-get update did not make hello installable. Last lines of $log:" >&2
	tail -n 15 "$log" >&2
	exit 1
fi
echo "apt: package lists updated"

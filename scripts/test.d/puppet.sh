#!/usr/bin/env bash
# Installs Puppet (Debian's puppet package, 7.23 on bookworm), which the
# differential tests in internal/cli run side by side with `almanac apply`
# (see docs/development.md: scripts/test provides every test dependency,
# and a missing one fails the run).
set -uo pipefail
if command -v puppet >/dev/null; then
	echo "puppet: $(puppet --version 2>/dev/null)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-puppet-install.XXXXXX.log)
echo "puppet: not installed; installing Debian's puppet (log: $log)"
if ! apt-get install -y -q puppet >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q puppet; } >>"$log" 2>&1; then
		echo "puppet: apt-get install puppet failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "puppet: installed $(puppet --version 2>/dev/null)"

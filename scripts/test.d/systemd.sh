#!/usr/bin/env bash
# Installs Debian's systemd for `systemd-analyze calendar`, the reference the
# differential test of internal/oncalendar compares every OnCalendar= answer
# with (see docs/development.md: scripts/test provides every test dependency,
# and a missing one fails the run).
set -uo pipefail
if command -v systemd-analyze >/dev/null; then
	echo "systemd: $(systemd-analyze --version 2>&1 | head -1)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-systemd-install.XXXXXX.log)
echo "systemd: not installed; installing Debian's systemd (log: $log)"
if ! apt-get install -y -q systemd >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q systemd; } >>"$log" 2>&1; then
		echo "systemd: apt-get install systemd failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "systemd: installed $(systemd-analyze --version 2>&1 | head -1)"

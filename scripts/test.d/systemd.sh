#!/usr/bin/env bash
# Installs Debian's systemd package for systemd-analyze, which two kinds of
# tests run: the calendar-event differential tests (`systemd-analyze calendar`
# is the reference for OnCalendar=) and the packaging tests (`systemd-analyze
# verify` on the unit file). See docs/development.md: scripts/test provides every
# test dependency, and a missing one fails the run. Installing the package
# starts nothing in a container without systemd as PID 1.
set -uo pipefail
if command -v systemd-analyze >/dev/null; then
	echo "systemd: $(systemd-analyze --version | head -n 1)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-systemd-install.XXXXXX.log)
echo "systemd: systemd-analyze not installed; installing Debian's systemd (log: $log)"
if ! apt-get install -y -q systemd >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q systemd; } >>"$log" 2>&1; then
		echo "systemd: apt-get install systemd failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "systemd: installed $(systemd-analyze --version | head -n 1)"

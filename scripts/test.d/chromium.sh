#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the web UI's browser tests
# (internal/webui/browser_test.go drives it headless through chromedp). A
# machine that already has /usr/bin/chromium is used as it is.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
	echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
	exit 0
fi

log=$(mktemp /tmp/almanac-chromium-install.XXXXXX.log)
export DEBIAN_FRONTEND=noninteractive
echo "chromium: not installed; installing Debian's chromium (log: $log)"
if ! apt-get install -y -q chromium >"$log" 2>&1; then
	# The package lists may be missing or stale on a fresh machine.
	if ! { apt-get update -q && apt-get install -y -q chromium; } >>"$log" 2>&1; then
		echo "chromium: apt-get install chromium failed; the browser tests cannot run. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
if [ ! -x /usr/bin/chromium ]; then
	echo "chromium: the package installed but /usr/bin/chromium is missing" >&2
	exit 1
fi
echo "chromium: installed $(/usr/bin/chromium --version 2>/dev/null)"

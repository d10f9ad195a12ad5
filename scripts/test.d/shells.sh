#!/usr/bin/env bash
# Installs zsh, fish and mandoc, which the tests of `almanac completion`
# and the manual page need: the shells check the completion scripts they
# are given, mandoc lints almanac.1 (see docs/development.md).
set -uo pipefail
missing=()
for tool in zsh fish mandoc; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "shells: zsh, fish and mandoc present"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-shells-install.XXXXXX.log)
echo "shells: installing Debian's ${missing[*]} (log: $log)"
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >>"$log" 2>&1; then
		echo "shells: apt-get install ${missing[*]} failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "shells: installed ${missing[*]}"

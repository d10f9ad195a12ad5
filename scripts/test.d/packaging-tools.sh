#!/usr/bin/env bash
# Installs what the tests of the shipped extras need (see
# docs/development.md): zsh and fish check the scripts of `almanac
# completion`, mandoc lints the manual page, skopeo reads and copies the
# OCI image scripts/oci-image writes, and umoci unpacks it in
# scripts/release-check.
set -uo pipefail
missing=()
for tool in zsh fish mandoc skopeo umoci; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "packaging-tools: zsh, fish, mandoc, skopeo and umoci present"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-packaging-tools-install.XXXXXX.log)
echo "packaging-tools: installing Debian's ${missing[*]} (log: $log)"
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >>"$log" 2>&1; then
		echo "packaging-tools: apt-get install ${missing[*]} failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "packaging-tools: installed ${missing[*]}"

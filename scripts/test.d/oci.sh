#!/usr/bin/env bash
# Installs skopeo, which the test of scripts/oci-image uses to read and
# copy the OCI image layout as container tools do (umoci comes along for
# scripts/release-check, which unpacks the image). See docs/development.md.
set -uo pipefail
missing=()
for tool in skopeo umoci; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "oci: $(skopeo --version), $(umoci --version)"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp /tmp/almanac-oci-install.XXXXXX.log)
echo "oci: installing Debian's ${missing[*]} (log: $log)"
if ! apt-get install -y -q --no-install-recommends "${missing[@]}" >"$log" 2>&1; then
	if ! { apt-get update -q && apt-get install -y -q --no-install-recommends "${missing[@]}"; } >>"$log" 2>&1; then
		echo "oci: apt-get install ${missing[*]} failed. Last lines of $log:" >&2
		tail -n 15 "$log" >&2
		exit 1
	fi
fi
echo "oci: installed ${missing[*]}"

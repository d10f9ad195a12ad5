// Package packaging holds the files almanac is installed with: the
// systemd unit (almanac.service), the default configuration
// (almanac.toml) and the Debian maintainer scripts (debian/), which
// scripts/release assembles into a .deb. Its tests check them against
// systemd and against the daemon: the unit verifies, its stop timeout
// covers the daemon's grace, and the configuration is one serve accepts.
package packaging

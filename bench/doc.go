// Package bench compares almanac's engines with peer libraries in the same
// benchmark run. It is a separate module so the peers never become
// dependencies of almanac itself.
package bench

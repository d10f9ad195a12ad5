// Package manifest lexes and parses almanac manifests, a subset of the Puppet
// language (see docs/manifest.md). ParseFile turns a source file into an AST
// whose every node carries its position (file, line, column); syntax errors and
// constructs outside the supported subset are reported together as an
// ErrorList of "file:line:col: message" entries. Evaluation of the AST into a
// catalog of resources lives in package catalog.
package manifest

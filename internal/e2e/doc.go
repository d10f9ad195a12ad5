// Package e2e holds almanac's end-to-end tests: they build and run the
// real binary (package servetest) or start a whole daemon in the test
// process (package daemontest), and drive it through the command line,
// the API client, signals and the database, as a user or an operator
// would. The package has no code of its own outside its tests.
package e2e

// Package manifestdir loads a directory of manifests as one catalog and
// watches it for changes.
//
// [Load] reads every *.pp file under a directory (recursively, in sorted
// path order, skipping hidden files and directories), parses and compiles
// them together as one manifest, checks the result for dependency cycles,
// and reports every problem as "file:line:col: message".
//
// A [Watcher] polls the directory on an injected clock. Each poll reads the
// files and hashes their names and contents; only a changed hash leads to a
// parse and compile, so an idle watcher costs one read of the manifests per
// interval and nothing else. A new catalog goes to the watcher's Accept
// function; a directory that does not compile, or a catalog Accept refuses,
// is logged with every positioned error and the previous catalog stays in
// force, so a bad edit loses nothing. The same broken content is reported
// once, not on every poll.
//
// The daemon runs one watcher for both uses of the directory: its Accept
// reloads the `job` resources (serve --manifests), and its Changed hook,
// called once per new content whether or not it compiles, queues an apply
// of the agent (agent mode).
package manifestdir

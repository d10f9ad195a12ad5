// Package manifestdir is the one way manifests become a catalog, and
// watches a directory of them for changes.
//
// The pipeline is read, then compile: [Read] reads every *.pp file under a
// directory (recursively, in sorted path order, skipping hidden files and
// directories) and [ReadFiles] the files a command names; [Compile]
// parses and compiles them together as one manifest and reports every
// problem as "file:line:col: message"; [Cycles] reports dependency cycles
// the same way. The one-shot commands (validate, apply), the agent's
// applies and the daemon's manifest jobs all go through it.
//
// A [Watcher] polls the directory on an injected clock. Each poll hashes
// the files' names and contents through one buffer, holding none of them;
// only a changed hash leads to a read, parse and compile, so an idle
// watcher costs one pass over the manifests per interval and no memory
// that grows with them. A new catalog goes to the watcher's Accept
// function, and the watcher keeps nothing of it; a directory that does not compile, or a catalog Accept refuses,
// is logged with every positioned error and the previous catalog stays in
// force, so a bad edit loses nothing. The same broken content is reported
// once, not on every poll.
//
// The daemon runs one watcher for both uses of the directory: its Accept
// reloads the `job` resources (serve --manifests), and its Changed hook,
// called once per new content whether or not it compiles, queues an apply
// of the agent (agent mode).
package manifestdir

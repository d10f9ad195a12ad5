// Package catalog compiles parsed manifests into a catalog: the resources to
// manage, in evaluation order, with their containers (Stage[main],
// Class[Main], classes and defined-type instances) and the typed
// relationships between them (ordering, refresh, containment and automatic
// edges). It evaluates classes, defines, variables, conditionals, iteration,
// resource defaults, collectors and chaining arrows, validates each resource
// against its type, and reports every problem as a positioned
// manifest.ErrorList using Puppet's wording where Puppet has one.
package catalog

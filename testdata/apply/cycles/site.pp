# Dependency cycles: reported like Puppet (checked against Puppet 7.23 by
# the engine tests), with the manifest position of each edge; nothing is
# applied, not even unrelated resources; exit 1; cycles.dot is written.
# (Relationship metaparameters come first so that their columns do not
# depend on the length of DIR.)
class inner { exec { 'in': command => 'echo in >> DIR/order' } }
include inner
Exec['in'] -> Exec['outside']
exec { 'outside': before => Class['inner'], command => 'echo outside >> DIR/order' }
exec { 'p': require => Exec['q'], command => 'echo p >> DIR/order' }
exec { 'q': require => Exec['p'], command => 'echo q >> DIR/order' }
exec { 'free': command => 'echo free >> DIR/order' }

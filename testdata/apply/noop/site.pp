# Noop: --noop changes nothing and reports each out-of-sync property and
# each refresh that would have happened; noop events propagate through
# classes. The noop metaparameter does the same for one resource (or a
# class) in a normal run; a target that receives real events refreshes.
class app {
  exec { 'install': command => 'echo install >> DIR/order' }
  exec { 'migrate': command => 'echo migrate >> DIR/order', refreshonly => true, subscribe => Exec['install'] }
}
include app
exec { 'dry': command => 'echo dry >> DIR/order', noop => true }
exec { 'wet': command => 'echo wet >> DIR/order' }
exec { 'hears_both': command => 'echo hears_both >> DIR/order', refreshonly => true, subscribe => [Exec['dry'], Exec['wet']] }
exec { 'hears_dry': command => 'echo hears_dry >> DIR/order', refreshonly => true, subscribe => Exec['dry'] }
file { 'DIR/f': ensure => file, content => "new\n" }
notify { 'hello': message => 'hi' }

exec { 'a': command => '/bin/a', colour => 'blue' }
file { '/x': ensure => file, source => 'puppet:///x' }
notify { 'n': mesage => 'typo' }
define thing($size = 1) { }
thing { 't': size => 2, weight => 3 }
class box($w = 1) { }
class { 'box': h => 2 }
Exec { bogus => true }
exec { 'b': command => '/bin/b' }

# Metaparameters: before, require, notify, subscribe with single references
# and arrays, schedule, tag, noop and alias.
schedule { 'nightly': range => '1 - 3' }
exec { 'first': command => '/bin/first', before => Exec['second'], notify => [Exec['third'], Service['svc']] }
exec { 'second': command => '/bin/second', require => [Exec['first']], subscribe => Exec['aliased'] }
exec { 'third': command => '/bin/third', refreshonly => true, schedule => 'nightly', tag => ['db', 'backup'] }
exec { 'long-real-name': command => '/bin/x', alias => 'aliased', noop => true }
service { 'svc': ensure => running, status => '/bin/true', schedule => 'hourly', noop => 'false' }
notify { 'via alias': require => Exec['aliased'] }

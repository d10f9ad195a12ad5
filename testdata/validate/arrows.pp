# Chaining arrows over references, arrays, declarations, class references
# and collectors; declaration values and iteration feeding chains.
class web { notify { 'in web': } }
include web
notify { ['a', 'b', 'c', 'd']: }
Notify['a'] -> Notify['b'] ~> Notify['c'] <- Notify['d']
Notify['a'] <~ Notify['d']
Notify['a', 'b'] -> [Notify['c'], Class['web']]
exec { 'p': command => '/bin/p' }
-> file { '/f': ensure => file }
~> service { 's': ensure => running, status => '/bin/true' }
$r = exec { ['x', 'y']: command => '/bin/true', tag => 'xy' }
$r -> Notify['d']
$steps = ['drain', 'upgrade'].map |$step| { exec { "node-${step}": command => "/sbin/${step}" } }
$steps ~> Exec <| tag == 'xy' and (title != 'y' or noop == true) |>
each(['e1', 'e2']) |$i, $n| { notify { $n: message => $i } }
Notify['e1'] -> Notify <| title == 'e2' |>
$big = { 'k1' => 5, 'k2' => 50 }.filter |$k, $v| { $v > 10 }
notify { 'filtered': message => $big }
3.each |$i| { notify { "n${i}": } }

notify { 'a': before => Notify['b'] }
notify { 'b': }
Notify['b'] -> Notify['a']
exec { 'p': command => '/bin/p', require => Exec['q'] }
exec { 'q': command => '/bin/q', subscribe => Exec['r'] }
exec { 'r': command => '/bin/r' }
Exec['p'] ~> Exec['r']
class inner { notify { 'inside': } }
include inner
Notify['inside'] -> Notify['outside']
notify { 'outside': before => Class['inner'] }
